/**
 * MIME bombs, generated rather than kept as files: the sources the black-box drills (the
 * bad-input drill in drills/) found served as silently empty messages. Each carries `subject` in a readable top-level
 * Subject header (but the oversized-subject bomb, whose subject starts with it) and a From.
 */
export interface MimeBomb {
  name: string;
  raw: string;
  /** The warnings its stored message must carry. */
  warnings: string[];
}

const head = (subject: string, extra = "") => `From: Bomb <bomb@x.test>\r\nTo: victim@x.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/[^A-Za-z0-9]/g, "-")}@x.test>\r\nMIME-Version: 1.0\r\n${extra}`;

/** `count` text parts in one multipart/mixed; the first says "part 0". */
export function manyParts(subject: string, count = 1_200): string {
  const parts = Array.from({ length: count }, (_, index) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${index}\r\n`).join("");
  return `${head(subject, 'Content-Type: multipart/mixed; boundary="b"\r\n')}\r\n${parts}--b--\r\n`;
}

/** `levels` nested multipart/mixed parts, a text part at the bottom and one at the top. */
export function deepNesting(subject: string, levels = 60): string {
  let body = "Content-Type: text/plain\r\n\r\nat the bottom\r\n";
  for (let level = levels; level > 0; level--) {
    body = `Content-Type: multipart/mixed; boundary="b${level}"\r\n\r\n--b${level}\r\n${body}--b${level}--\r\n`;
  }
  return `${head(subject, 'Content-Type: multipart/mixed; boundary="top"\r\n')}\r\n--top\r\nContent-Type: text/plain\r\n\r\nat the top\r\n--top\r\n${body}--top--\r\n`;
}

/** A Subject of `bytes` bytes that starts with `subject`, on one line. */
export function hugeSubject(subject: string, bytes = 8 * 1024 * 1024): string {
  return `From: Bomb <bomb@x.test>\r\nSubject: ${subject} ${"s".repeat(bytes)}\r\nTo: victim@x.test\r\nMessage-ID: <huge-subject@x.test>\r\n\r\nthe body\r\n`;
}

/** `count` extra header fields before the body. */
export function manyHeaders(subject: string, count = 100_000): string {
  const fields = Array.from({ length: count }, (_, index) => `X-H${index}: v\r\n`).join("");
  return `${head(subject)}${fields}\r\nthe body\r\n`;
}

/** A To header of `count` addresses (short enough to stay under the header field cap for the first thousands). */
export function manyAddresses(subject: string, count = 100_000): string {
  const to = Array.from({ length: count }, (_, index) => `u${index}@x.test`).join(", ");
  return `From: Bomb <bomb@x.test>\r\nSubject: ${subject}\r\nTo: ${to}\r\n\r\nthe body\r\n`;
}

/** A message whose attachment's header block is past mailsplit's nested header limit: mailparser throws. */
export function unparseable(subject: string, headerBytes = 3 * 1024 * 1024): string {
  return `${head(subject, 'Content-Type: multipart/mixed; boundary="b"\r\n')}\r\n--b\r\nContent-Type: text/plain\r\nX-Huge: ${"a".repeat(headerBytes)}\r\n\r\nbody\r\n--b--\r\n`;
}

/** Every bomb, named, with the warnings its stored message carries. */
export function mimeBombs(subject: (name: string) => string): MimeBomb[] {
  return [
    { name: "1,200 parts", raw: manyParts(subject("parts")), warnings: ["truncated_parts"] },
    { name: "60 levels of nesting", raw: deepNesting(subject("nesting")), warnings: ["nesting_too_deep"] },
    { name: "an 8 MiB subject", raw: hugeSubject(subject("subject")), warnings: ["header_too_large"] },
    { name: "100,000 header fields", raw: manyHeaders(subject("headers")), warnings: ["too_many_headers"] },
    { name: "100,000 To addresses", raw: manyAddresses(subject("addresses")), warnings: ["header_too_large", "too_many_addresses"] },
    { name: "a nested header block mailparser refuses", raw: unparseable(subject("unparseable")), warnings: ["unparseable"] },
  ];
}
