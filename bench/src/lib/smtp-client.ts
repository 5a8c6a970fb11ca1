import { type Socket, createConnection } from "node:net";
import { type SmtpReply, readReplies } from "@mailstop/deploy";

export type Reply = SmtpReply;

/**
 * A small SMTP client for load generation: one connection, commands in order, MAIL, RCPT and
 * DATA pipelined (every server here advertises PIPELINING). It costs the load generator far
 * less CPU than nodemailer's pool, which matters on a two-core machine where the generator and
 * the server share the cores.
 */
export class SmtpClient {
  private readonly pending: Array<{ resolve: (reply: Reply) => void; reject: (error: Error) => void }> = [];
  private failure: Error | null = null;

  private constructor(private readonly socket: Socket) {
    readReplies(
      socket,
      (reply) => this.pending.shift()?.resolve(reply),
      (cause) => {
        this.failure = cause ?? new Error("connection closed");
        for (const waiter of this.pending.splice(0)) waiter.reject(this.failure);
      },
    );
  }

  /** Connects, reads the greeting and says EHLO. */
  static async connect(port: number, host = "127.0.0.1"): Promise<SmtpClient> {
    const socket = createConnection({ port, host });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const client = new SmtpClient(socket);
    const greeting = await client.read();
    if (greeting.code !== 220) throw new Error(`greeting ${greeting.code} ${greeting.text}`);
    const ehlo = await client.command("EHLO bench.example");
    if (ehlo.code !== 250) throw new Error(`EHLO ${ehlo.code} ${ehlo.text}`);
    return client;
  }

  private read(): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }

  command(line: string): Promise<Reply> {
    const reply = this.read();
    this.socket.write(`${line}\r\n`);
    return reply;
  }

  /**
   * One transaction. `data` is the message with CRLF line ends, dot-stuffed, ending in CRLF.
   * Resolves with the final reply (250 when accepted) and the moment it arrived.
   */
  async send(from: string, to: string, data: Buffer): Promise<{ reply: Reply; at: number }> {
    const replies = [this.read(), this.read(), this.read()];
    this.socket.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
    const [mail, rcpt, dataReply] = await Promise.all(replies);
    if (mail!.code !== 250) throw new Error(`MAIL ${mail!.code} ${mail!.text}`);
    if (rcpt!.code !== 250) throw new Error(`RCPT ${rcpt!.code} ${rcpt!.text}`);
    if (dataReply!.code !== 354) throw new Error(`DATA ${dataReply!.code} ${dataReply!.text}`);
    const final = this.read();
    this.socket.write(data);
    this.socket.write(".\r\n");
    const reply = await final;
    const at = performance.now();
    if (reply.code !== 250) throw new Error(`end of DATA ${reply.code} ${reply.text}`);
    return { reply, at };
  }

  close(): void {
    if (this.failure) {
      this.socket.destroy();
      return;
    }
    this.command("QUIT").catch(() => undefined);
    this.socket.end();
  }
}

/** `count` connections to one server (a pool: each sender holds one). */
export async function openPool(port: number, count: number): Promise<SmtpClient[]> {
  const clients: SmtpClient[] = [];
  // A few at a time: a burst of connects is not what is being measured.
  for (let i = 0; i < count; i += 10) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => SmtpClient.connect(port)))));
  }
  return clients;
}
