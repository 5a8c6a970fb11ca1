/// <reference path="./libmime.d.ts" />
import { extract } from "@mailstop/extraction";
import type { MessageParts, ParsedContent } from "@mailstop/db";
import libmime from "libmime";
import { PARSE_LIMITS, type ParseWarning, sortedWarnings } from "./parse-limits";
import { addressesOf, type AttachmentMeta, type ReadMessage } from "./read-message";

/** The longest correlation id kept: the `correlation_id` match pattern allows 128 characters (docs/messages-and-matching.md "Matching"). */
const CORRELATION_MAX = 128;

/** A header line's value: unfolded, RFC 2047 words decoded. */
function headerValue(line: string): string {
  const value = line.slice(line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim();
  try {
    // libmime exports an instance whose methods use `this`: call them on it.
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** The http(s) URLs of a List-Unsubscribe header (`<https://…>, <mailto:…>`). */
export function listUnsubscribeUrls(pairs: readonly [string, string][]): string[] {
  return pairs
    .filter(([name]) => name === "list-unsubscribe")
    .flatMap(([, value]) => [...value.matchAll(/<\s*(https?:\/\/[^>\s]+)\s*>/gi)].map((match) => match[1]!));
}

/** The header block as text, exactly as received (the `headers` body slice). */
export function headerBlock(read: ReadMessage): string {
  return read.headerLines.map((entry) => entry.line).join("\r\n");
}

function first(value: unknown): string | null {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === "string" && text.trim() !== "" ? text.trim() : null;
}

/** What PostgreSQL cannot store: U+0000, or a lone UTF-16 surrogate (half of a pair, without its other half). */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A copy of `value` that PostgreSQL can store: every U+0000 and every lone surrogate replaced
 * by U+FFFD. Decoded mail can carry NUL (`=00` in quoted-printable, an encoded word,
 * mislabelled UTF-16), which text and jsonb refuse, and lone surrogates (a UTF-16 encoded word
 * cut in half), which jsonb refuses: without this, an accepted message could never be stored.
 */
export function storable<T>(value: T): T {
  if (typeof value === "string") return value.replace(UNSTORABLE, "\uFFFD") as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, storable(entry)])) as T;
  }
  return value;
}

/** Where the decoded parts went: their sizes and keys, and the bodies kept in the row. */
export interface StoredParts {
  parts: MessageParts;
  htmlBody: string | null;
  headerBlock: string | null;
}

/** Everything the message view and matching need, derived from one read of the raw source. */
export function buildContent(read: ReadMessage, stored: StoredParts, attachments: (AttachmentMeta & { blobKey: string })[]): ParsedContent {
  return storable(contentOf(read, stored, attachments));
}

function contentOf(read: ReadMessage, { parts, htmlBody, headerBlock }: StoredParts, attachments: (AttachmentMeta & { blobKey: string })[]): ParsedContent {
  const headers: [string, string][] = read.headerLines.map((entry) => [entry.key.toLowerCase(), headerValue(entry.line)]);
  const subject = first(read.headers.get("subject")) ?? "";
  const { codes, links } = extract({ subject, text: read.text, html: read.html, listUnsubscribe: listUnsubscribeUrls(headers) });
  const warnings = new Set<ParseWarning>(read.warnings);
  // The first addresses of a header with too many: the rest stay in the raw source and `headers`.
  const addresses = (name: string) => {
    const all = addressesOf(read.headers.get(name));
    if (all.length <= PARSE_LIMITS.maxAddresses) return all;
    warnings.add("too_many_addresses");
    return all.slice(0, PARSE_LIMITS.maxAddresses);
  };
  return {
    messageId: first(read.headers.get("message-id")),
    correlationId: first(read.headers.get("x-service-correlation-id"))?.slice(0, CORRELATION_MAX) ?? null,
    subject,
    from: addressesOf(read.headers.get("from"))[0] ?? null,
    to: addresses("to"),
    cc: addresses("cc"),
    replyTo: addresses("reply-to"),
    headers,
    textBody: read.text,
    htmlBody,
    headerBlock,
    parts,
    codes,
    links,
    parseError: null,
    parseWarnings: sortedWarnings(warnings),
    attachments: attachments.map(({ position, filename, contentType, contentId, size, blobKey }) => ({ position, filename, contentType, contentId, size, blobKey })),
  };
}

/**
 * A source mailparser could not read: still stored, readable as raw, with the failure recorded
 * and `unparseable` among its warnings. `recovered` is its top-level header block read on its
 * own (see readHeaderBlock), so its subject, addresses and ids stay visible and matchable.
 */
export function unparsedContent(reason: string, recovered: { read: ReadMessage; stored: StoredParts } | null = null): ParsedContent {
  const parseError = reason.slice(0, 1000);
  if (recovered === null) {
    return storable({
      messageId: null,
      correlationId: null,
      subject: "",
      from: null,
      to: [],
      cc: [],
      replyTo: [],
      headers: [],
      textBody: null,
      htmlBody: null,
      headerBlock: null,
      parts: {},
      codes: [],
      links: [],
      parseError,
      parseWarnings: ["unparseable"],
      attachments: [],
    });
  }
  const content = contentOf({ ...recovered.read, text: null, html: null, attachments: [] }, { ...recovered.stored, htmlBody: null }, []);
  return storable({ ...content, textBody: null, parseError, parseWarnings: sortedWarnings(["unparseable", ...content.parseWarnings] as ParseWarning[]) });
}
