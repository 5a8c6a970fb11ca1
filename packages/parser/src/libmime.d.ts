// libmime (a dependency of mailparser, used here directly) ships no types.
declare module "libmime" {
  const libmime: {
    /** Decodes RFC 2047 encoded words (`=?utf-8?B?…?=`) in a header value. */
    decodeWords(value: string): string;
  };
  export default libmime;
}
