import { randomBytes } from "node:crypto";

/** The two message shapes of every scenario. */
export type MessageSize = "2kb" | "50kb";

const WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split(" ");

function prose(bytes: number): string {
  const lines: string[] = [];
  let length = 0;
  let i = 0;
  while (length < bytes) {
    const words: string[] = [];
    for (let w = 0; w < 11; w++) words.push(WORDS[(i * 7 + w * 3) % WORDS.length]!);
    i += 1;
    const line = words.join(" ");
    lines.push(line);
    length += line.length + 2;
  }
  return lines.join("\r\n");
}

const TEXT_2KB = `Hello,\r\n\r\nYour verification code is 482913.\r\nConfirm your address: https://app.example.com/verify?t=abc123\r\n\r\n${prose(1700)}\r\n`;
const ATTACHMENT_BASE64 = (randomBytes(36_000).toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");
const BOUNDARY = "bench-boundary-7f3a";
const BODY_50KB =
  `This is a multi-part message in MIME format.\r\n--${BOUNDARY}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${TEXT_2KB}\r\n` +
  `--${BOUNDARY}\r\nContent-Type: application/pdf; name="invoice.pdf"\r\nContent-Disposition: attachment; filename="invoice.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n${ATTACHMENT_BASE64}\r\n--${BOUNDARY}--\r\n`;

const BODIES: Record<MessageSize, { contentType: string; body: Buffer }> = {
  "2kb": { contentType: "text/plain; charset=utf-8", body: Buffer.from(TEXT_2KB, "latin1") },
  "50kb": { contentType: `multipart/mixed; boundary="${BOUNDARY}"`, body: Buffer.from(BODY_50KB, "latin1") },
};

/**
 * A message ready for DATA (CRLF, nothing to dot-stuff, ends in CRLF). Only the header block is
 * built per message; the body is shared, so generating load costs little.
 */
export function message(size: MessageSize, to: string, subject: string): Buffer {
  const { contentType, body } = BODIES[size];
  const head =
    `From: Bench <bench@sender.example>\r\nTo: <${to}>\r\nSubject: ${subject}\r\n` +
    `Message-ID: <${randomBytes(8).toString("hex")}@sender.example>\r\nDate: ${new Date().toUTCString()}\r\n` +
    `MIME-Version: 1.0\r\nContent-Type: ${contentType}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

export const SENDER = "bench@sender.example";
