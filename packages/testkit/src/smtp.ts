import { createConnection, type Socket } from "node:net";
import { once } from "node:events";
import nodemailer from "nodemailer";

/** One SMTP reply: its code and its text lines (multi-line replies joined). */
export interface SmtpResponse {
  code: number;
  text: string;
}

/**
 * A raw SMTP client for tests where exact reply codes matter. `send` writes bytes exactly as
 * given (CRLF is not added) and reads the next complete reply, with a deadline.
 */
export class SmtpDialogue {
  private buffer = "";
  private waiting: ((line: string) => void) | null = null;
  private readonly lines: string[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      let index: number;
      while ((index = this.buffer.indexOf("\r\n")) >= 0) {
        this.lines.push(this.buffer.slice(0, index));
        this.buffer = this.buffer.slice(index + 2);
      }
      this.flush();
    });
  }

  static async open(port: number, host = "127.0.0.1"): Promise<{ dialogue: SmtpDialogue; greeting: SmtpResponse }> {
    const socket = createConnection({ port, host });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const dialogue = new SmtpDialogue(socket);
    return { dialogue, greeting: await dialogue.read() };
  }

  private flush(): void {
    if (this.waiting && this.lines.length > 0) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve(this.lines.shift()!);
    }
  }

  private nextLine(deadlineMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error(`no SMTP reply within ${deadlineMs} ms`));
      }, deadlineMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.flush();
    });
  }

  /** Reads one complete reply (`250-…` lines continue it, `250 …` ends it). */
  async read(deadlineMs = 10_000): Promise<SmtpResponse> {
    const texts: string[] = [];
    for (;;) {
      const line = await this.nextLine(deadlineMs);
      texts.push(line.slice(4));
      if (line[3] !== "-") return { code: Number(line.slice(0, 3)), text: texts.join("\n") };
    }
  }

  /** Sends `command` followed by CRLF and reads the reply. */
  async command(command: string, deadlineMs?: number): Promise<SmtpResponse> {
    this.socket.write(`${command}\r\n`);
    return this.read(deadlineMs);
  }

  /** Writes raw bytes without reading. */
  write(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Sends one small message to `to` in a raw dialogue and returns the DATA reply (a 250 names
 * the transaction), or the RCPT reply when the recipient is refused.
 */
export async function sendOneRaw(port: number, to: string, subject: string, options: { replyWithinMs?: number; messageId?: string } = {}): Promise<SmtpResponse> {
  const { dialogue } = await SmtpDialogue.open(port);
  try {
    await dialogue.command("EHLO test.example");
    await dialogue.command("MAIL FROM:<sender@x.test>");
    const rcpt = await dialogue.command(`RCPT TO:<${to}>`);
    if (rcpt.code !== 250) return rcpt;
    await dialogue.command("DATA");
    const messageId = options.messageId ?? `${subject.replace(/[^A-Za-z0-9]/g, "-")}@x.test`;
    dialogue.write(`Subject: ${subject}\r\nMessage-ID: <${messageId}>\r\n\r\nbody\r\n`);
    return await dialogue.command(".", options.replyWithinMs ?? 15_000);
  } finally {
    dialogue.close();
  }
}

/** A nodemailer transport to a mailstop listener on loopback (self-signed STARTTLS accepted). */
export function smtpTransport(
  port: number,
  options: { auth?: { user: string; pass: string }; authMethod?: "PLAIN" | "LOGIN"; requireTLS?: boolean; pool?: boolean } = {},
) {
  return nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    tls: { rejectUnauthorized: false },
    ...(options.requireTLS ? { requireTLS: true } : {}),
    ...(options.pool ? { pool: true, maxConnections: 1 } : {}),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.authMethod === undefined ? {} : { authMethod: options.authMethod }),
  });
}

/**
 * A nodemailer transport as an application configures one: host, port and, for the capture
 * relay, its credential; nothing else (nodemailer then upgrades whenever STARTTLS is offered
 * and rejects a certificate it cannot verify).
 */
export function defaultSmtpTransport(port: number, auth?: { user: string; pass: string }) {
  return nodemailer.createTransport({ host: "127.0.0.1", port, ...(auth === undefined ? {} : { auth }) });
}

/** Polls `probe` until it returns a value other than null/undefined, or fails after the deadline. */
export async function eventually<T>(probe: () => Promise<T | null | undefined>, options: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? "a condition"}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Everything a new SMTP connection is told before the server closes it. */
export async function toldBeforeClose(port: number, ms: number): Promise<string> {
  const socket = createConnection({ port, host: "127.0.0.1" });
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (text += chunk));
  try {
    await once(socket, "close", { signal: AbortSignal.timeout(ms) });
  } finally {
    socket.destroy();
  }
  return text;
}
