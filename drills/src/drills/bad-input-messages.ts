/**
 * Hostile inputs, generated rather than kept as files. Each message carries its own Message-ID
 * so the tally can find it; the MIME bombs mirror packages/parser's fixture of the same name.
 */

const head = (messageId: string, subject: string, extra = "") =>
  `From: Bomb <bomb@x.test>\r\nTo: victim@x.test\r\nSubject: ${subject}\r\nMessage-ID: <${messageId}>\r\nMIME-Version: 1.0\r\n${extra}`;

export interface Bomb {
  name: string;
  /** Everything before the final dot, CRLF-terminated, dot-stuffed where it matters. */
  raw: (messageId: string, subject: string) => string;
  /** Warnings the stored message must carry. */
  warnings: string[];
}

export const BOMBS: Bomb[] = [
  {
    name: "1,200 MIME parts",
    warnings: ["truncated_parts"],
    raw: (id, subject) =>
      `${head(id, subject, 'Content-Type: multipart/mixed; boundary="b"\r\n')}\r\n${Array.from({ length: 1_200 }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join("")}--b--\r\n`,
  },
  {
    name: "an 8 MiB subject",
    warnings: ["header_too_large"],
    raw: (id, subject) => `From: Bomb <bomb@x.test>\r\nSubject: ${subject} ${"s".repeat(8 * 1024 * 1024)}\r\nTo: victim@x.test\r\nMessage-ID: <${id}>\r\n\r\nthe body\r\n`,
  },
  {
    name: "100,000 header fields",
    warnings: ["too_many_headers"],
    raw: (id, subject) => `${head(id, subject)}${Array.from({ length: 100_000 }, (_, i) => `X-H${i}: v\r\n`).join("")}\r\nthe body\r\n`,
  },
  {
    name: "60 levels of nesting",
    warnings: ["nesting_too_deep"],
    raw: (id, subject) => {
      let body = "Content-Type: text/plain\r\n\r\nat the bottom\r\n";
      for (let level = 60; level > 0; level--) body = `Content-Type: multipart/mixed; boundary="b${level}"\r\n\r\n--b${level}\r\n${body}--b${level}--\r\n`;
      return `${head(id, subject, 'Content-Type: multipart/mixed; boundary="top"\r\n')}\r\n--top\r\nContent-Type: text/plain\r\n\r\nat the top\r\n--top\r\n${body}--top--\r\n`;
    },
  },
  {
    name: "100,000 To addresses",
    warnings: ["too_many_addresses"],
    raw: (id, subject) =>
      `From: Bomb <bomb@x.test>\r\nSubject: ${subject}\r\nMessage-ID: <${id}>\r\nTo: ${Array.from({ length: 100_000 }, (_, i) => `u${i}@x.test`).join(", ")}\r\n\r\nthe body\r\n`,
  },
];

/** Attachment names that try to escape a directory, hide a NUL or reverse the text (RTL override). */
export const HOSTILE_NAMES = ["../../etc/passwd", "..\\..\\windows\\win.ini", "nul\u0000byte.txt", "invoice\u202Efdp.exe"];

export function withHostileAttachments(messageId: string, subject: string): string {
  const parts = HOSTILE_NAMES.map((name) => {
    // RFC 2231: the raw bytes, percent-encoded, survive every transport and reach the parser intact.
    const encoded = [...Buffer.from(name, "utf8")].map((b) => (/[A-Za-z0-9._-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`)).join("");
    return `--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename*=UTF-8''${encoded}\r\nContent-Transfer-Encoding: base64\r\n\r\naGVsbG8=\r\n`;
  });
  return `${head(messageId, subject, 'Content-Type: multipart/mixed; boundary="b"\r\n')}\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n${parts.join("")}--b--\r\n`;
}

/**
 * The six SMTP smuggling end-of-data variants (SEC Consult, 2023): an end of DATA that is not
 * CRLF.CRLF. A server that honours one ends the message there and runs what follows as
 * commands: a second, forged transaction.
 */
export const SMUGGLING_ENDINGS: { name: string; bytes: string }[] = [
  { name: "LF.LF", bytes: "\n.\n" },
  { name: "LF.CRLF", bytes: "\n.\r\n" },
  { name: "CRLF.LF", bytes: "\r\n.\n" },
  { name: "CR.CR", bytes: "\r.\r" },
  { name: "CRLF.CR", bytes: "\r\n.\r" },
  { name: "CR.LF", bytes: "\r.\n" },
];

export function smuggling(outerId: string, outerSubject: string, ending: string, smuggledId: string, recipient: string): string {
  const smuggled = `MAIL FROM:<smuggler@evil.test>\r\nRCPT TO:<${recipient}>\r\nDATA\r\nFrom: smuggler@evil.test\r\nSubject: smuggled\r\nMessage-ID: <${smuggledId}>\r\n\r\nforged\r\n`;
  return `${head(outerId, outerSubject)}\r\nthe outer body${ending}${smuggled}`;
}
