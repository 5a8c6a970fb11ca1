import type { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { type AddressObject, type AttachmentStream, type HeaderLines, type Headers, MailParser, type MessageText } from "mailparser";
import { HeaderLimiter, limitHeaders } from "./header-limiter";
import { PARSE_LIMITS, type ParseLimits, type ParseWarning } from "./parse-limits";

export interface AttachmentMeta {
  position: number;
  filename: string | null;
  contentType: string;
  contentId: string | null;
  size: number;
}

/** What one pass over a raw source yields; attachments went to `storeAttachment` as they streamed by. */
export interface ReadMessage {
  headers: Headers;
  headerLines: HeaderLines;
  /** The text/plain part, or null when the message has none (never derived from the HTML). */
  text: string | null;
  html: string | null;
  attachments: AttachmentMeta[];
  /** The limits the source went past (ParseLimits): what is here is what was read within them. */
  warnings: Set<ParseWarning>;
}

/** The chunks mailsplit hands mailparser, as far as the limits look at them. */
type SplitterChunk = { type: "node"; parentNode: SplitterNode | false } | { type: "body"; value: Buffer } | { type: "data" };
interface SplitterNode {
  parentNode: SplitterNode | false;
}
type ProcessChunk = (chunk: SplitterChunk, done: (error?: Error) => void) => void;

function depthOf(node: { parentNode: SplitterNode | false }): number {
  let depth = 0;
  for (let parent = node.parentNode; parent; parent = parent.parentNode) depth += 1;
  return depth;
}

/**
 * Parses a raw source in one streaming pass with mailparser. Attachment bodies are never held
 * here: each is handed to `storeAttachment` as a stream, one at a time (mailparser waits for
 * `release()` before it goes on), so the parser's own memory does not grow with their size.
 *
 * The source is read within `limits`: the top-level header block is bounded before mailparser
 * sees it (HeaderLimiter); past `maxParts` parts or `maxDepth` levels the read stops there and
 * what was read is the message; a part's body past `maxPartBytes` is skipped. Each limit
 * reached is named in `warnings`.
 */
export function readMessage(
  raw: Readable,
  storeAttachment: (position: number, content: Readable, contentType: string) => Promise<number>,
  limits: ParseLimits = { ...PARSE_LIMITS, maxPartBytes: Number.POSITIVE_INFINITY },
): Promise<ReadMessage> {
  return new Promise((resolve, reject) => {
    // mailsplit's own limits fail the whole message: ours act first. Its header limit stays
    // as a bound on a nested part's header block, above the top-level block's.
    const parser = new MailParser({
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      skipTextLinks: true,
      maxHeadSize: limits.maxHeaderBlockBytes * 2,
      maxChildNodes: Number.MAX_SAFE_INTEGER,
    } as ConstructorParameters<typeof MailParser>[0]);
    const limiter = new HeaderLimiter(limits);
    const warnings = limiter.warnings;
    const result: ReadMessage = { headers: new Map(), headerLines: [], text: null, html: null, attachments: [], warnings };
    const bounded = limitHeaders(limiter);
    let pending: Promise<unknown> = Promise.resolve();
    let failed = false;
    let stopped = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      raw.destroy();
      reject(error);
    };
    // A limit reached: no more of the source is read, and mailparser ends with what it has.
    const stop = (warning: ParseWarning) => {
      warnings.add(warning);
      if (stopped) return;
      stopped = true;
      raw.unpipe(bounded);
      raw.destroy();
      bounded.end();
    };

    const processChunk = (parser as unknown as { processChunk: ProcessChunk }).processChunk.bind(parser);
    let nodes = 0;
    let partBytes = 0;
    (parser as unknown as { processChunk: ProcessChunk }).processChunk = (chunk, done) => {
      if (stopped) return done();
      if (chunk.type === "node") {
        nodes += 1;
        const over: ParseWarning | null = nodes > limits.maxParts ? "truncated_parts" : depthOf(chunk) > limits.maxDepth ? "nesting_too_deep" : null;
        if (over !== null) {
          stop(over);
          return done();
        }
        partBytes = 0;
      } else if (chunk.type === "body") {
        const room = limits.maxPartBytes - partBytes;
        partBytes += chunk.value.length;
        if (chunk.value.length > room) {
          warnings.add("part_too_large");
          if (room <= 0) return done();
          return processChunk({ ...chunk, value: chunk.value.subarray(0, room) }, done);
        }
      }
      return processChunk(chunk, done);
    };

    parser.on("headers", (headers: Headers) => {
      result.headers = headers;
    });
    parser.on("headerLines", (lines: HeaderLines) => {
      result.headerLines = lines;
    });
    parser.on("data", (data: AttachmentStream | MessageText) => {
      if (data.type === "text") {
        // mailparser reports a missing text part as "" (HTML is never turned into text here).
        result.text = data.text ? data.text : null;
        result.html = typeof data.html === "string" ? data.html : null;
        return;
      }
      const position = result.attachments.length;
      const meta: AttachmentMeta = {
        position,
        filename: data.filename ?? null,
        contentType: data.contentType || "application/octet-stream",
        contentId: data.contentId ?? null,
        size: 0,
      };
      result.attachments.push(meta);
      pending = pending.then(async () => {
        try {
          meta.size = await storeAttachment(position, data.content as Readable, meta.contentType);
        } finally {
          data.release();
        }
      });
      pending.catch(fail);
    });
    parser.on("end", () => {
      pending.then(() => resolve(result), fail);
    });
    // mailparser's own errors mean the source cannot be parsed; an error of the raw stream
    // (the object store connection dropped mid-read) is transient and must be retried.
    parser.on("error", fail);
    raw.on("error", (error) => {
      if (!stopped) fail(new MailstopError("storage_unavailable", "Reading the raw source failed.", { cause: error }));
    });
    raw.pipe(bounded).pipe(parser);
  });
}

/** Every address of an address header (groups flattened), with null names when there are none. */
export function addressesOf(value: unknown): { address: string; name: string | null }[] {
  const objects = (Array.isArray(value) ? value : value ? [value] : []) as AddressObject[];
  const out: { address: string; name: string | null }[] = [];
  const walk = (entries: AddressObject["value"]) => {
    for (const entry of entries) {
      if (entry.group) walk(entry.group);
      else if (entry.address) out.push({ address: entry.address, name: entry.name || null });
    }
  };
  for (const object of objects) if (object && Array.isArray(object.value)) walk(object.value);
  return out;
}
