import { Readable } from "node:stream";
import { HeaderLimiter, readHeaderBlock } from "./header-limiter";

const LIMITS = { maxHeaderFieldBytes: 32, maxHeaderBlockBytes: 100, maxHeaderFields: 4 };

/** Feeds `source` one byte at a time (the worst split) and returns what passed, and the warnings. */
function limit(source: string, limits = LIMITS) {
  const limiter = new HeaderLimiter(limits);
  const out: Buffer[] = [];
  for (const byte of Buffer.from(source)) {
    const { header, body } = limiter.push(Buffer.from([byte]));
    out.push(...header, ...(body ? [body] : []));
  }
  out.push(...limiter.end());
  return { text: Buffer.concat(out).toString(), warnings: [...limiter.warnings] };
}

describe("HeaderLimiter", () => {
  it("passes a header block within its limits unchanged, folded lines and body included", () => {
    const source = "Subject: a\r\n folded\r\nFrom: b@c.test\n\r\nbody\r\nX-Not: a header\r\n";
    expect(limit(source)).toEqual({ text: source, warnings: [] });
  });

  it("keeps a long field's first bytes, its folded lines dropped, the line ended again", () => {
    const source = `Subject: ${"s".repeat(50)}\r\n ${"t".repeat(50)}\r\nFrom: b@c.test\r\n\r\nbody`;
    expect(limit(source)).toEqual({ text: `Subject: ${"s".repeat(23)}\r\nFrom: b@c.test\r\n\r\nbody`, warnings: ["header_too_large"] });
  });

  it("skips fields past the field count and the block size", () => {
    expect(limit("A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\nbody").text).toBe("A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\nbody");
    expect(limit("A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n").warnings).toEqual(["too_many_headers"]);
    const wide = { ...LIMITS, maxHeaderFieldBytes: 60, maxHeaderFields: 100 };
    const field = (name: string) => `${name}: ${"v".repeat(40)}\r\n`;
    expect(limit(`${field("A")}${field("B")}${field("C")}D: 4\r\n\r\n`, wide)).toEqual({ text: `${field("A")}${field("B")}D: 4\r\n\r\n`, warnings: ["header_too_large"] });
  });

  it("ends a source that has no body with what it has", () => {
    expect(limit("Subject: only")).toEqual({ text: "Subject: only", warnings: [] });
  });

  it("reads the header block alone, no further than its end", async () => {
    let served = 0;
    const source = new Readable({
      read() {
        served += 1;
        this.push(served === 1 ? Buffer.from("Subject: x\r\n\r\nbody") : served < 1_000 ? Buffer.alloc(1_000, 0x62) : null);
      },
    });
    const block = await readHeaderBlock(source, new HeaderLimiter(LIMITS));
    expect(block.toString()).toBe("Subject: x\r\n\r\n");
    expect(served).toBeLessThan(100);
  });
});
