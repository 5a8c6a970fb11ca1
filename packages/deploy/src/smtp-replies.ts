import type { Socket } from "node:net";

/** One SMTP reply: its code and its text (continuation lines joined by newlines). */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * Assembles an SMTP server's replies from the text it sends (latin1 chunks, as they arrive):
 * "250-…" lines continue a reply, "250 …" ends it. Shared by the raw clients of the benchmark
 * and the fault drills, which need what nodemailer does not offer: pipelining at a low CPU
 * cost, hostile bytes sent as given, and a missing reply seen as such.
 */
export class SmtpReplyReader {
  private buffer = "";
  private lines: string[] = [];

  /** Takes a chunk; returns the replies it completed, in order. */
  push(chunk: string): SmtpReply[] {
    this.buffer += chunk;
    const replies: SmtpReply[] = [];
    let index: number;
    while ((index = this.buffer.indexOf("\r\n")) >= 0) {
      const line = this.buffer.slice(0, index);
      this.buffer = this.buffer.slice(index + 2);
      this.lines.push(line);
      if (line.length < 4 || line[3] !== "-") {
        replies.push({ code: Number(line.slice(0, 3)), text: this.lines.map((l) => l.slice(4)).join("\n") });
        this.lines = [];
      }
    }
    return replies;
  }
}

/**
 * Reads a raw client's connection: each reply to `onReply` as it completes, then `onEnd` once,
 * with the error that ended the connection or null when it closed without one (a socket that
 * fails emits "close" too, after "error"). No Nagle delay: a command must go out when written,
 * or the client would time the kernel's wait rather than the server.
 */
export function readReplies(socket: Socket, onReply: (reply: SmtpReply) => void, onEnd: (cause: Error | null) => void): void {
  const reader = new SmtpReplyReader();
  let ended = false;
  const end = (cause: Error | null) => {
    if (ended) return;
    ended = true;
    onEnd(cause);
  };
  socket.setNoDelay(true);
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    for (const reply of reader.push(chunk)) onReply(reply);
  });
  socket.on("error", end);
  socket.on("close", () => end(null));
}
