import { type Socket, createConnection } from "node:net";
import { type SmtpReply, readReplies } from "@mailstop/deploy";

export type Reply = SmtpReply;

/** The connection ended or said nothing within the deadline: the outcome is unknown. */
export class NoReply extends Error {}

/**
 * A raw SMTP session over loopback: bytes go out exactly as given, and every read has a
 * deadline. Drills need both: a hostile input is not something nodemailer would send, and a
 * crash must show up as a missing reply, never as a hang.
 */
export class SmtpSession {
  private readonly replies: Reply[] = [];
  private waiter: (() => void) | null = null;
  private ended: Error | null = null;

  private constructor(private readonly socket: Socket) {
    readReplies(
      socket,
      (reply) => {
        this.replies.push(reply);
        this.wake();
      },
      (cause) => {
        this.ended = new NoReply(cause ? `connection error: ${cause.message}` : "connection closed");
        this.wake();
      },
    );
  }

  /** Connects and reads the greeting (220, or 421 from an edge that is shutting down). */
  static async open(port: number, timeoutMs = 10_000): Promise<{ session: SmtpSession; greeting: Reply }> {
    const socket = createConnection({ port, host: "127.0.0.1" });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (socket.destroy(), reject(new NoReply("connect timed out"))), timeoutMs);
      socket.once("connect", () => (clearTimeout(timer), resolve()));
      socket.once("error", (error) => (clearTimeout(timer), reject(new NoReply(`connect: ${error.message}`))));
    });
    const session = new SmtpSession(socket);
    try {
      return { session, greeting: await session.read(timeoutMs) };
    } catch (error) {
      session.close();
      throw error;
    }
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  /** The next reply; throws NoReply when the connection ends or nothing comes within `timeoutMs`. */
  async read(timeoutMs = 30_000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = this.replies.shift();
      if (reply !== undefined) return reply;
      if (this.ended) throw this.ended;
      const left = deadline - Date.now();
      if (left <= 0) throw new NoReply(`no reply within ${Math.round(timeoutMs / 1000)} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => (clearTimeout(timer), resolve());
      });
    }
  }

  /** A reply already received, or one arriving within `ms` (a smuggled second reply). */
  async maybeRead(ms: number): Promise<Reply | null> {
    try {
      return await this.read(ms);
    } catch {
      return null;
    }
  }

  async command(line: string, timeoutMs?: number): Promise<Reply> {
    this.write(`${line}\r\n`);
    return this.read(timeoutMs);
  }

  /** Writes bytes; resolves once the socket took them (large inputs respect back-pressure). */
  write(bytes: string | Buffer): Promise<void> {
    if (this.ended || this.socket.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (this.socket.write(bytes)) resolve();
      else {
        const done = () => (this.socket.off("drain", done), this.socket.off("close", done), resolve());
        this.socket.on("drain", done);
        this.socket.on("close", done);
      }
    });
  }

  get closed(): boolean {
    return this.ended !== null;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The transaction id a 250 names (`… as <26-char ULID>`). */
export function transactionOf(reply: Reply): string | undefined {
  return /\bas ([0-9A-HJKMNP-TV-Z]{26})\b/i.exec(reply.text)?.[1];
}

/** Dot-stuffs a message (CRLF line ends) for DATA. */
export function dotStuff(message: string): string {
  return message.replace(/(^|\r\n)\./g, "$1..");
}
