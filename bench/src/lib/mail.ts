import { randomBytes } from "node:crypto";

/**
 * The message shapes of the scenarios: 2 KB of text, the same with a 36 KB attachment, and
 * "2kb-html", the same 2 KB as a transactional mail sends it (a text part and its HTML
 * alternative: a `<style>` block, a layout table, a few links), which gives the parser's HTML
 * check its work (checks-cost).
 */
export type MessageSize = "2kb" | "50kb" | "2kb-html";

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

/** The HTML part of "2kb-html" (about 1.7 KB; the message 2.2 KB), as a transactional template writes it. */
export const HTML_2KB = [
  `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">`,
  `<style>body{margin:0;background:#f4f4f7;font-family:Helvetica,Arial,sans-serif}.wrap{max-width:560px;margin:0 auto;background:#fff;border-radius:6px}`,
  `p{margin:0 0 12px}.code{font-size:28px;letter-spacing:4px;font-weight:bold;color:#1a1a2e}.btn{display:inline-block;padding:12px 24px;background:#3869d4;color:#fff;border-radius:4px;text-decoration:none}`,
  `a{color:#3869d4}.foot td{font-size:12px;color:#6b6e76}@media only screen and (max-width:600px){.wrap{width:100% !important}}</style></head>`,
  `<body><table class="wrap" role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td style="padding:32px">`,
  `<h1 style="font-size:20px;margin:0 0 16px">Confirm your address</h1><p>Hello,</p><p>Your verification code is</p><p class="code">482913</p>`,
  `<p><a class="btn" href="https://app.example.com/verify?t=abc123">Verify my address</a></p>`,
  `<p style="line-height:1.5">${prose(300).replaceAll("\r\n", " ")}</p>`,
  `<table class="foot" role="presentation" width="100%"><tr><td><a href="https://app.example.com/help">Help</a> &middot; `,
  `<a href="https://app.example.com/settings/notifications">Notification settings</a> &middot; <a href="https://example.com/privacy">Privacy</a></td></tr>`,
  `<tr><td>Example Inc., 1 Market Street, San Francisco</td></tr></table></td></tr></table></body></html>`,
].join("\r\n");
const ALTERNATIVE = "bench-alternative-2c91";
const BODY_2KB_HTML =
  `--${ALTERNATIVE}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello,\r\n\r\nYour verification code is 482913.\r\nConfirm your address: https://app.example.com/verify?t=abc123\r\n\r\n` +
  `--${ALTERNATIVE}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${HTML_2KB}\r\n--${ALTERNATIVE}--\r\n`;

const BODIES: Record<MessageSize, { contentType: string; body: Buffer }> = {
  "2kb": { contentType: "text/plain; charset=utf-8", body: Buffer.from(TEXT_2KB, "latin1") },
  "50kb": { contentType: `multipart/mixed; boundary="${BOUNDARY}"`, body: Buffer.from(BODY_50KB, "latin1") },
  "2kb-html": { contentType: `multipart/alternative; boundary="${ALTERNATIVE}"`, body: Buffer.from(BODY_2KB_HTML, "utf8") },
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
