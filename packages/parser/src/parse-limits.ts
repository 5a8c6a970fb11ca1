/**
 * What the parser reads of one raw source at most. A message past a limit is still stored:
 * with what was read within the limits, and the limit's name in `parse_warnings`
 * (docs/messages-and-matching.md "Broken and hostile mail"; why: docs/decisions.md "Parsing
 * and storing"). The raw source always stays whole.
 */
export interface ParseLimits {
  /** MIME parts (the root counts); the part past it and everything after it are not read. */
  maxParts: number;
  /** Ancestors of a part (multipart and message/rfc822 levels); a deeper part stops the read. */
  maxDepth: number;
  /** One top-level header field, folded lines included; a longer one keeps its first bytes. */
  maxHeaderFieldBytes: number;
  /** The top-level header block as kept; fields that would pass it are skipped. */
  maxHeaderBlockBytes: number;
  /** Fields of the top-level header block; the ones past it are skipped. */
  maxHeaderFields: number;
  /** Body bytes of one part as encoded (decoded bytes are never more); the rest of the part is skipped. */
  maxPartBytes: number;
  /** Addresses kept per address header (To, Cc, Reply-To). */
  maxAddresses: number;
}

/** The limits but the part size, which is the configured message size (MAILSTOP_MAX_MESSAGE_BYTES). */
export const PARSE_LIMITS: Omit<ParseLimits, "maxPartBytes"> = {
  maxParts: 1_000,
  maxDepth: 20,
  maxHeaderFieldBytes: 64 * 1024,
  maxHeaderBlockBytes: 1024 * 1024,
  maxHeaderFields: 10_000,
  maxAddresses: 1_000,
};

/**
 * The names `parse_warnings` can hold. `unparseable`: mailparser failed; the row holds only
 * the top-level headers read on their own, and the raw source.
 */
export type ParseWarning =
  | "truncated_parts"
  | "nesting_too_deep"
  | "header_too_large"
  | "too_many_headers"
  | "part_too_large"
  | "too_many_addresses"
  | "unparseable";

/** Warnings in one stable order, each once. */
export function sortedWarnings(warnings: Iterable<ParseWarning>): ParseWarning[] {
  const order: ParseWarning[] = ["unparseable", "truncated_parts", "nesting_too_deep", "header_too_large", "too_many_headers", "part_too_large", "too_many_addresses"];
  const present = new Set(warnings);
  return order.filter((warning) => present.has(warning));
}
