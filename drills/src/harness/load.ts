import { randomBytes } from "node:crypto";
import { NoReply, type Reply, SmtpSession, dotStuff, transactionOf } from "./smtp";
import type { Inbox } from "./target";
import { sleep } from "./time";

/** How one try of a transaction ended. */
export interface Attempt {
  /** The SMTP code of the reply that ended it, or null when no reply came (refused, cut, silent). */
  code: number | null;
  /** Where it ended. */
  stage: "connect" | "greeting" | "mail" | "rcpt" | "data" | "dot";
  /** True once the final `.` was written: the server may have kept this copy whatever it said. */
  afterDot: boolean;
  text: string;
  transaction?: string;
  /** When the reply arrived (or the try failed). */
  at: number;
  /** When the final dot was written. */
  dotAt?: number;
}

/** One message the load sends: a Message-ID and subject of its own, to one or two inboxes. */
export interface Message {
  seq: number;
  messageId: string;
  subject: string;
  inboxes: Inbox[];
  attempts: Attempt[];
}

export const accepted = (message: Message) => message.attempts.some((a) => a.code === 250 && a.stage === "dot");

/** A message's bytes: about 1 KiB, one in ten 64 KiB so that DATA is sometimes still in flight when a drill strikes. */
export function renderMessage(message: Message): string {
  const filler = message.seq % 10 === 9 ? 64 * 1024 : 768;
  const line = "The quick brown fox jumps over the lazy dog. 0123456789 abcdefghijklmnop\r\n";
  const body = line.repeat(Math.ceil(filler / line.length));
  return dotStuff(
    [
      `From: Drills <drills@sender.test>`,
      `To: ${message.inboxes.map((i) => i.address).join(", ")}`,
      `Subject: ${message.subject}`,
      `Message-ID: <${message.messageId}>`,
      `Date: ${new Date().toUTCString()}`,
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      `message ${message.seq}`,
      body,
    ].join("\r\n"),
  );
}

export interface LoadOptions {
  /** Where sender number `sender` sends: read at every connect, so a drill may move it. */
  port: (sender: number) => number;
  inboxes: Inbox[];
  /** Senders, each with one connection (a pool). */
  concurrency: number;
  /** Pause between one sender's messages; paces the load on a two-core machine. */
  pauseMs?: number;
  /** How long a message is retried after `stop()` before it is given up (an MTA's queue lifetime, shortened). */
  retryWindowMs?: number;
  label: string;
}

/**
 * Sends over real SMTP from `concurrency` senders until stopped, as MTAs would: every 4xx, refused
 * connection or missing reply is retried with backoff on a new connection (the same Message-ID:
 * it is the same message), a 5xx is final. Every try is recorded.
 */
export class Load {
  readonly messages: Message[] = [];
  private running = true;
  private giveUpAt = Number.POSITIVE_INFINITY;
  private readonly senders: Promise<void>[];
  private readonly run = randomBytes(3).toString("hex");

  constructor(private readonly options: LoadOptions) {
    this.senders = Array.from({ length: options.concurrency }, (_, i) => this.sender(i));
  }

  /** Stops taking new messages; resolves once every message is accepted, refused for good, or given up. */
  async stop(): Promise<void> {
    this.running = false;
    this.giveUpAt = Date.now() + (this.options.retryWindowMs ?? 90_000);
    await Promise.all(this.senders);
  }

  /** Ends everything now (a drill that failed): senders give up their current message at once. */
  async abort(): Promise<void> {
    this.running = false;
    this.giveUpAt = 0;
    await Promise.all(this.senders);
  }

  /** Messages so far that got a 250. */
  acceptedCount(): number {
    return this.messages.filter(accepted).length;
  }

  /** Resolves once `count` more messages got a 250 than when called (the load makes progress). */
  async progress(count: number, timeoutMs: number): Promise<boolean> {
    const goal = this.acceptedCount() + count;
    const deadline = Date.now() + timeoutMs;
    while (this.acceptedCount() < goal) {
      if (Date.now() > deadline) return false;
      await sleep(50);
    }
    return true;
  }

  private next(): Message {
    const seq = this.messages.length;
    const { inboxes } = this.options;
    const first = inboxes[seq % inboxes.length]!;
    // One transaction in five reaches two inboxes: a copy per inbox, never two in one.
    const recipients = seq % 5 === 4 && inboxes.length > 1 ? [first, inboxes[(seq + 1) % inboxes.length]!] : [first];
    const message: Message = {
      seq,
      messageId: `${this.options.label}.${this.run}.${seq}@drills.test`,
      subject: `drill ${this.options.label} ${this.run} #${seq}`,
      inboxes: recipients,
      attempts: [],
    };
    this.messages.push(message);
    return message;
  }

  private async sender(index: number): Promise<void> {
    const connection = new Connection(() => this.options.port(index));
    try {
      while (this.running) {
        await deliver(connection, this.next(), () => this.giveUpAt);
        if (this.options.pauseMs) await sleep(this.options.pauseMs);
      }
    } finally {
      await connection.quit();
    }
  }
}

/** One sender's connection, opened on demand and dropped after any failure. */
export class Connection {
  session: SmtpSession | null = null;

  constructor(readonly port: () => number) {}

  async quit(): Promise<void> {
    if (this.session && !this.session.closed) {
      await this.session.command("QUIT", 2_000).catch(() => undefined);
      this.session.close();
    }
    this.session = null;
  }
}

/**
 * Sends `message` until a 250 or a 5xx, retrying (after a growing pause, on a new connection)
 * every 4xx, refused connection or missing reply until `giveUpAt()` passes.
 */
export async function deliver(connection: Connection, message: Message, giveUpAt: () => number = () => Number.POSITIVE_INFINITY): Promise<void> {
  let backoff = 200;
  for (;;) {
    if (connection.session?.closed) connection.session = null;
    const attempt = await tryOnce(connection, message);
    message.attempts.push(attempt);
    if (attempt.code === 250 || (attempt.code !== null && attempt.code >= 500)) return;
    connection.session?.close();
    connection.session = null;
    if (Date.now() > giveUpAt()) return;
    await sleep(backoff);
    backoff = Math.min(2_000, backoff * 2);
  }
}

/** One try of a transaction on `connection`. */
async function tryOnce(connection: Connection, message: Message): Promise<Attempt> {
  let stage: Attempt["stage"] = "connect";
  let afterDot = false;
  let dotAt: number | undefined;
  const end = (reply: Reply | null, text?: string): Attempt => ({
    code: reply?.code ?? null,
    stage,
    afterDot,
    text: text ?? reply?.text ?? "",
    at: Date.now(),
    ...(dotAt === undefined ? {} : { dotAt }),
    ...(reply && transactionOf(reply) ? { transaction: transactionOf(reply)! } : {}),
  });
  try {
    if (connection.session === null) {
      const opened = await SmtpSession.open(connection.port());
      connection.session = opened.session;
      stage = "greeting";
      if (opened.greeting.code !== 220) return end(opened.greeting);
      const ehlo = await opened.session.command("EHLO drills.test");
      if (ehlo.code !== 250) return end(ehlo);
    }
    const session = connection.session;
    stage = "mail";
    const mail = await session.command("MAIL FROM:<drills@sender.test>");
    if (mail.code !== 250) return end(mail);
    stage = "rcpt";
    for (const inbox of message.inboxes) {
      const rcpt = await session.command(`RCPT TO:<${inbox.address}>`);
      if (rcpt.code !== 250) return end(rcpt);
    }
    stage = "data";
    const data = await session.command("DATA");
    if (data.code !== 354) return end(data);
    stage = "dot";
    await session.write(renderMessage(message));
    // A connection cut during the body never carried the final dot: that try stored nothing.
    afterDot = !session.closed;
    dotAt = Date.now();
    // The edge's writes have 10 s deadlines each; 30 s without a reply is a hang.
    return end(await session.command(".", 30_000));
  } catch (error) {
    if (!(error instanceof NoReply)) throw error;
    connection.session?.close();
    connection.session = null;
    return end(null, error.message);
  }
}
