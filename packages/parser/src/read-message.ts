import type { Readable } from "node:stream";
import { MailstopError } from "@mailstop/core";
import { type AddressObject, type AttachmentStream, type HeaderLines, type Headers, MailParser, type MessageText } from "mailparser";

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
}

/**
 * Parses a raw source in one streaming pass with mailparser. Attachment bodies are never held
 * here: each is handed to `storeAttachment` as a stream, one at a time (mailparser waits for
 * `release()` before it goes on), so the parser's own memory does not grow with their size.
 */
export function readMessage(raw: Readable, storeAttachment: (position: number, content: Readable, contentType: string) => Promise<number>): Promise<ReadMessage> {
  return new Promise((resolve, reject) => {
    const parser = new MailParser({ skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true });
    const result: ReadMessage = { headers: new Map(), headerLines: [], text: null, html: null, attachments: [] };
    let pending: Promise<unknown> = Promise.resolve();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      raw.destroy();
      reject(error);
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
    raw.on("error", (error) => fail(new MailstopError("storage_unavailable", "Reading the raw source failed.", { cause: error })));
    raw.pipe(parser);
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
