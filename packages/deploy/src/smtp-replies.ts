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
