// libmime (a dependency of mailparser, used here directly) ships no types.
declare module "libmime" {
  /** Decodes RFC 2047 encoded words (`=?utf-8?B?…?=`) in a header value. */
  export function decodeWords(value: string): string;
}
