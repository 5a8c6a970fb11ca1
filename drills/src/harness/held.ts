import { request } from "./api";
import { renderMessage, type Message } from "./load";
import { type Reply, SmtpSession, transactionOf } from "./smtp";
import type { Target } from "./target";

/** A blocking wait held on the waiter, its answer kept when it comes. */
export interface HeldWait {
  answer: Promise<{ status: number; body: any; at: number } | { status: 0; body: string; at: number }>;
}

export function holdWait(target: Target, inbox: string, options: { match?: Record<string, unknown>; timeoutMs: number }): HeldWait {
  const body = { inbox, timeout_ms: options.timeoutMs, ...(options.match ? { match: options.match } : {}) };
  return {
    answer: request(target.waitUrl, target.apiKey, "POST", "/v1/messages/wait", body, options.timeoutMs + 30_000).then(
      (answer) => ({ ...answer, at: Date.now() }),
      (error: Error) => ({ status: 0 as const, body: error.message, at: Date.now() }),
    ),
  };
}

/** A wait's answer is the retryable refusal a restart owes it: 503 and `retryable: true`. */
export const retryableRefusal = (answer: { status: number; body: any }) => answer.status === 503 && answer.body?.error?.retryable === true;

/** One frame of an event stream. */
export interface Frame {
  event: string;
  data: any;
  id?: string;
}

/**
 * An event stream read with fetch (no reconnect: a drill wants to see how it ends). `ended`
 * resolves when the server closes the response or the connection breaks.
 */
export class HeldStream {
  readonly frames: Frame[] = [];
  readonly ended: Promise<string>;
  private readonly abort = new AbortController();

  constructor(target: Target, inbox: string) {
    this.ended = this.read(`${target.waitUrl}/stream/v1/inboxes/${inbox}/events`, target.apiKey).then(
      () => "closed by the server",
      (error: Error) => `broken: ${error.message}`,
    );
  }

  private async read(url: string, token: string): Promise<void> {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal: this.abort.signal });
    if (response.status !== 200) {
      this.frames.push({ event: "http", data: { status: response.status, body: await response.text() } });
      return;
    }
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let index: number;
      while ((index = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        const frame: Frame = { event: "message", data: null };
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") frame.event = value;
          else if (field === "data") data += (data ? "\n" : "") + value;
          else if (field === "id") frame.id = value;
        }
        if (data === "") continue;
        try {
          frame.data = JSON.parse(data);
        } catch {
          frame.data = data;
        }
        this.frames.push(frame);
      }
    }
  }

  has(event: string, predicate: (frame: Frame) => boolean = () => true): boolean {
    return this.frames.some((frame) => frame.event === event && predicate(frame));
  }

  close(): void {
    this.abort.abort();
  }
}

/**
 * A transaction stopped in the middle of DATA: MAIL, RCPT and DATA done and half the body
 * written. `finish` writes the rest and the final dot and returns the reply (or null when none
 * came). What a drill strikes during is exactly this.
 */
export class TransactionInData {
  private constructor(
    private readonly session: SmtpSession,
    private readonly rest: string,
    readonly message: Message,
  ) {}

  static async begin(port: number, message: Message): Promise<TransactionInData> {
    const { session, greeting } = await SmtpSession.open(port);
    const expect = (reply: Reply, code: number, what: string) => {
      if (reply.code !== code) throw new Error(`${what}: ${reply.code} ${reply.text}`);
    };
    expect(greeting, 220, "greeting");
    expect(await session.command("EHLO drills.test"), 250, "EHLO");
    expect(await session.command("MAIL FROM:<drills@sender.test>"), 250, "MAIL");
    for (const inbox of message.inboxes) expect(await session.command(`RCPT TO:<${inbox.address}>`), 250, "RCPT");
    expect(await session.command("DATA"), 354, "DATA");
    const raw = renderMessage(message);
    const half = raw.indexOf("\r\n", Math.floor(raw.length / 2)) + 2;
    await session.write(raw.slice(0, half));
    return new TransactionInData(session, raw.slice(half), message);
  }

  /** Writes the rest and the dot; records the outcome on the message as a try. */
  async finish(timeoutMs = 30_000): Promise<Reply | null> {
    await this.session.write(this.rest);
    const afterDot = !this.session.closed;
    const dotAt = Date.now();
    const reply = await this.session.command(".", timeoutMs).catch(() => null);
    this.message.attempts.push({
      code: reply?.code ?? null,
      stage: "dot",
      afterDot,
      text: reply?.text ?? "no reply",
      at: Date.now(),
      dotAt,
      ...(reply && transactionOf(reply) ? { transaction: transactionOf(reply)! } : {}),
    });
    this.session.close();
    return reply;
  }
}
