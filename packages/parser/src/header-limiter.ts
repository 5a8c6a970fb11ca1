import { type Readable, Transform, type TransformCallback } from "node:stream";
import type { ParseLimits, ParseWarning } from "./parse-limits";

const LF = 0x0a;
const CR = 0x0d;
const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x09;
const CRLF = Buffer.from("\r\n");

type HeaderLimits = Pick<ParseLimits, "maxHeaderFieldBytes" | "maxHeaderBlockBytes" | "maxHeaderFields">;

/**
 * Bounds the top-level header block of a raw source as it streams by, before mailparser sees
 * it (mailsplit fails the whole message on a header block over 1 MiB, and holds all of it in
 * memory first). A field longer than `maxHeaderFieldBytes` keeps its first bytes; fields past
 * `maxHeaderFields`, or that would make the block longer than `maxHeaderBlockBytes`, are
 * skipped. Memory stays within one field's cap whatever the source holds (a 60 MiB line
 * without a line break included). The body passes untouched.
 */
export class HeaderLimiter {
  readonly warnings = new Set<ParseWarning>();
  /** Set once the empty line that ends the header block has been seen. */
  inBody = false;
  private field: Buffer[] = [];
  private fieldBytes = 0;
  private fieldCut = false;
  private atLineStart = true;
  private blockBytes = 0;
  private fields = 0;

  constructor(private readonly limits: HeaderLimits) {}

  /** The bytes to pass on for `chunk`: kept header fields, then (from the block's end on) the body as it came. */
  push(chunk: Buffer): { header: Buffer[]; body: Buffer | null } {
    if (this.inBody) return { header: [], body: chunk };
    const header: Buffer[] = [];
    let position = 0;
    while (position < chunk.length) {
      if (this.atLineStart) {
        const byte = chunk[position]!;
        if (!isWhitespace(byte)) {
          this.closeField(header);
          if (byte === CR || byte === LF) {
            this.inBody = true;
            return { header, body: chunk.subarray(position) };
          }
        }
        this.atLineStart = false;
      }
      const newline = chunk.indexOf(LF, position);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.append(chunk.subarray(position, end));
      if (newline !== -1) this.atLineStart = true;
      position = end;
    }
    return { header, body: null };
  }

  /** What is left when the source ends inside its header block. */
  end(): Buffer[] {
    const header: Buffer[] = [];
    if (!this.inBody) this.closeField(header);
    return header;
  }

  private append(segment: Buffer): void {
    const room = this.limits.maxHeaderFieldBytes - this.fieldBytes;
    if (segment.length > room) this.fieldCut = true;
    const kept = segment.length > room ? segment.subarray(0, Math.max(0, room)) : segment;
    if (kept.length === 0) return;
    // A copy: a view would keep the whole chunk it came from alive.
    this.field.push(Buffer.from(kept));
    this.fieldBytes += kept.length;
  }

  private closeField(out: Buffer[]): void {
    if (this.fieldBytes === 0 && !this.fieldCut) return;
    let field = Buffer.concat(this.field, this.fieldBytes);
    if (this.fieldCut) {
      // Cut inside a line: end it again, so the next field still starts a line.
      let end = field.length;
      while (end > 0 && (field[end - 1] === LF || field[end - 1] === CR)) end--;
      field = Buffer.concat([field.subarray(0, end), CRLF]);
      this.warnings.add("header_too_large");
    }
    this.field = [];
    this.fieldBytes = 0;
    this.fieldCut = false;
    if (this.fields >= this.limits.maxHeaderFields) {
      this.warnings.add("too_many_headers");
      return;
    }
    if (this.blockBytes + field.length > this.limits.maxHeaderBlockBytes) {
      this.warnings.add("header_too_large");
      return;
    }
    this.fields += 1;
    this.blockBytes += field.length;
    out.push(field);
  }
}

/** A stream of the raw source with its top-level header block bounded (HeaderLimiter). */
export function limitHeaders(limiter: HeaderLimiter): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const { header, body } = limiter.push(chunk);
      for (const piece of header) this.push(piece);
      if (body !== null && body.length > 0) this.push(body);
      callback();
    },
    flush(callback: TransformCallback) {
      for (const piece of limiter.end()) this.push(piece);
      callback();
    },
  });
}

/**
 * The top-level header block of a raw source alone, bounded as HeaderLimiter bounds it, with
 * the empty line that ends it. Reads no further than the block's end; a source that ends
 * inside its header block yields what it has.
 */
export async function readHeaderBlock(raw: Readable, limiter: HeaderLimiter): Promise<Buffer> {
  const kept: Buffer[] = [];
  try {
    for await (const chunk of raw) {
      kept.push(...limiter.push(chunk as Buffer).header);
      if (limiter.inBody) break;
    }
  } finally {
    raw.destroy();
  }
  kept.push(...limiter.end(), CRLF);
  return Buffer.concat(kept);
}
