import { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { buildContent } from "./content";
import { deepNesting, hugeSubject, manyAddresses, manyHeaders, manyParts, unparseable } from "./mime-bombs.fixture";
import { PARSE_LIMITS, type ParseLimits } from "./parse-limits";
import { readMessage } from "./read-message";

const LIMITS: ParseLimits = { ...PARSE_LIMITS, maxPartBytes: 25 * 1024 * 1024 };

/** Reads `raw` whole, in 64 KiB chunks as a stored object arrives; attachments are drained and sized. */
function read(raw: string | Buffer, limits: ParseLimits = LIMITS) {
  const bytes = Buffer.from(raw);
  const chunks = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, index) => bytes.subarray(index * 65_536, (index + 1) * 65_536));
  return readMessage(Readable.from(chunks), async (_position, content) => {
    let size = 0;
    for await (const chunk of content) size += (chunk as Buffer).length;
    return size;
  }, limits);
}

const contentOf = async (raw: string, limits?: ParseLimits) => buildContent(await read(raw, limits), { parts: {}, htmlBody: null, headerBlock: null }, []);

describe("readMessage", () => {
  it("reports a failure of the raw stream as retryable storage_unavailable, not as an unparseable message", async () => {
    const raw = new Readable({
      read() {
        this.push(Buffer.from("Subject: half\r\nContent-Type: text/plain\r\n\r\nthe start of a body"));
        this.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
      },
    });
    const failure = readMessage(raw, async () => 0);
    await expect(failure).rejects.toBeInstanceOf(MailstopError);
    await expect(failure).rejects.toMatchObject({ code: "storage_unavailable", retryable: true });
  });

  it("reports mailparser's own failure as a plain error (the message is stored raw-only)", async () => {
    const failure = read(unparseable("nested"));
    await expect(failure).rejects.not.toBeInstanceOf(MailstopError);
    await expect(failure).rejects.toThrow(/header size/i);
  });

  it("reads a clean message with no warnings", async () => {
    const content = await contentOf("From: a@b.test\r\nTo: c@d.test\r\nSubject: clean\r\n\r\nhello\r\n");
    expect(content).toMatchObject({ subject: "clean", parseWarnings: [], textBody: "hello\n" });
  });
});

describe("parse limits", () => {
  it("stops at the 1,001st part and keeps the parts before it: truncated_parts", async () => {
    const message = await read(manyParts("parts", 1_200));
    expect(message.warnings).toEqual(new Set(["truncated_parts"]));
    expect(message.headers.get("subject")).toBe("parts");
    // The root is the first part: 999 text parts are read, joined by mailparser.
    expect(message.text).toContain("part 0\n");
    expect(message.text).toContain("part 998");
    expect(message.text).not.toContain("part 999");
  });

  it("reads exactly 1,000 parts without a warning", async () => {
    const message = await read(manyParts("parts", 999));
    expect(message.warnings.size).toBe(0);
    expect(message.text).toContain("part 998");
  });

  it("stops at a part nested deeper than 20 levels: nesting_too_deep, the shallower text kept", async () => {
    const message = await read(deepNesting("deep", 60));
    expect(message.warnings).toEqual(new Set(["nesting_too_deep"]));
    expect(message.text).toContain("at the top");
    expect(message.text).not.toContain("at the bottom");
    expect((await read(deepNesting("shallow", 18))).warnings.size).toBe(0);
  });

  it("keeps the first 64 KiB of an 8 MiB subject, and the fields after it: header_too_large", async () => {
    const content = await contentOf(hugeSubject("huge"));
    expect(content.parseWarnings).toEqual(["header_too_large"]);
    expect(content.subject.startsWith("huge sss")).toBe(true);
    expect(content.subject.length).toBeLessThanOrEqual(PARSE_LIMITS.maxHeaderFieldBytes);
    expect(content.subject.length).toBeGreaterThan(PARSE_LIMITS.maxHeaderFieldBytes - 100);
    expect(content.to).toEqual([{ address: "victim@x.test", name: null }]);
    expect(content.messageId).toBe("<huge-subject@x.test>");
    expect(content.textBody).toBe("the body\n");
  });

  it("keeps a 60 MiB header line without a line break to its first 64 KiB, in bounded memory", async () => {
    const line = Buffer.alloc(60 * 1024 * 1024, 0x61);
    const chunks = (function* () {
      yield Buffer.from("Subject: long\r\nX-Long: ");
      for (let offset = 0; offset < line.length; offset += 1024 * 1024) yield line.subarray(offset, offset + 1024 * 1024);
      yield Buffer.from("\r\nFrom: a@b.test\r\n\r\nbody\r\n");
    })();
    const before = process.memoryUsage().rss;
    const message = await readMessage(Readable.from(chunks), async () => 0, LIMITS);
    // The source is 60 MiB and was never held: what grew is far below it (a loose bound for a loaded machine).
    expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
    expect(message.warnings).toEqual(new Set(["header_too_large"]));
    expect(message.headerLines.find((entry) => entry.key === "x-long")!.line.length).toBeLessThanOrEqual(PARSE_LIMITS.maxHeaderFieldBytes);
    expect(message.text).toBe("body\n");
  });

  it("skips header fields that would pass the block's 1 MiB: header_too_large, the earlier and smaller later fields kept", async () => {
    const fields = Array.from({ length: 40 }, (_, index) => `X-F${index}: ${"v".repeat(60_000)}\r\n`).join("");
    const content = await contentOf(`Subject: block\r\n${fields}From: late@x.test\r\n\r\nbody\r\n`);
    expect(content.parseWarnings).toEqual(["header_too_large"]);
    expect(content.subject).toBe("block");
    expect(content.headers.map(([name]) => name)).toContain("x-f0");
    expect(content.headers.map(([name]) => name)).not.toContain("x-f39");
    expect(content.from).toEqual({ address: "late@x.test", name: null });
  });

  it("keeps the first 10,000 header fields of 100,000: too_many_headers", async () => {
    const message = await read(manyHeaders("fields", 100_000));
    expect(message.warnings).toEqual(new Set(["too_many_headers"]));
    expect(message.headerLines).toHaveLength(PARSE_LIMITS.maxHeaderFields);
    expect(message.headers.get("subject")).toBe("fields");
    expect(message.text).toBe("the body\n");
  });

  it("keeps the first 1,000 addresses of a To header: too_many_addresses", async () => {
    const content = await contentOf(manyAddresses("addresses", 100_000));
    expect(content.parseWarnings).toEqual(["header_too_large", "too_many_addresses"]);
    expect(content.to).toHaveLength(PARSE_LIMITS.maxAddresses);
    expect(content.to[0]).toEqual({ address: "u0@x.test", name: null });
    expect(content.to[999]).toEqual({ address: "u999@x.test", name: null });
    expect((await contentOf(manyAddresses("few", 1_000))).parseWarnings).toEqual([]);
  });

  it("cuts a part whose body passes the part limit: part_too_large, the other parts whole", async () => {
    const raw = [
      "Subject: big part",
      'Content-Type: multipart/mixed; boundary="b"',
      "",
      "--b",
      "Content-Type: text/plain",
      "",
      "the text",
      "--b",
      "Content-Type: application/octet-stream",
      'Content-Disposition: attachment; filename="big.bin"',
      "",
      "x".repeat(5_000),
      "--b--",
      "",
    ].join("\r\n");
    const message = await read(raw, { ...LIMITS, maxPartBytes: 1_000 });
    expect(message.warnings).toEqual(new Set(["part_too_large"]));
    expect(message.text).toBe("the text");
    expect(message.attachments).toEqual([expect.objectContaining({ filename: "big.bin", size: 1_000 })]);
  });
});
