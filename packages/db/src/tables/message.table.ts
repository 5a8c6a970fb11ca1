import type { ColumnType, Generated } from "kysely";
import type { Labels } from "./inbox.table";

type Json<T> = ColumnType<T, string | undefined, string>;

export interface MessageAddress {
  address: string;
  name: string | null;
}

export interface MessageLink {
  url: string;
  kind: "verify" | "sign_in" | "unsubscribe" | "reset_password" | "other";
  text: string | null;
}

/**
 * Each decoded part's size in bytes and, when it lives in the object store, its key. A part
 * without a key is in the row: `text_body`, `html_body` or `header_block`.
 */
export type MessageParts = Partial<Record<"text" | "html" | "headers", { key?: string; size: number }>>;

/** The RFC result words (RFC 8601, 7208, 7489) of one DKIM signature, SPF and DMARC. */
export type DkimResult = "pass" | "fail" | "neutral" | "policy" | "temperror" | "permerror" | "none";
export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror";
export type DmarcResult = "pass" | "fail" | "none" | "temperror" | "permerror";

/** A message's authentication, checked by the parser from its raw source and the connection it came over. */
export interface AuthenticationCheck {
  status: "pass" | "fail" | "none" | "temperror";
  dkim: { domain: string; selector: string; result: DkimResult; aligned: boolean }[];
  spf: { domain: string | null; result: SpfResult };
  dmarc: { domain: string | null; policy: "none" | "quarantine" | "reject" | null; result: DmarcResult };
  arc: { result: string };
}

/** The features of a message's HTML part that the configured mail clients do not, or only partly, support. */
export interface HtmlCheck {
  status: "ok" | "warnings" | "none";
  issues: { feature: string; title: string; level: "unsupported" | "partial"; clients: string[]; count: number }[];
}

/** The answer of one link of a link check. */
export interface LinkResult {
  url: string;
  ok: boolean;
  status_code: number | null;
  redirects: number;
  final_url: string | null;
  error: "timeout" | "blocked_address" | "dns" | "connection" | "tls" | "too_many_redirects" | null;
}

/** A message's links as last checked on request (POST …/checks/links). */
export interface LinkCheck {
  status: "ok" | "broken";
  checked_at: string;
  results: LinkResult[];
}

/** SpamAssassin's verdict on a message, asked by the parser when spamd is configured. */
export interface SpamCheck {
  status: "ham" | "spam" | "error";
  score: number | null;
  threshold: number | null;
  rules: { name: string; score: number; description: string }[];
}

/**
 * What was checked of a message; each null (or absent, on rows stored before it existed) when
 * it could not be computed or was not asked for.
 */
export interface MessageChecks {
  authentication: AuthenticationCheck | null;
  html: HtmlCheck | null;
  spam?: SpamCheck | null;
  links?: LinkCheck | null;
}

export interface MessagesTable {
  id: string;
  project_id: string;
  inbox_id: string;
  seq: Generated<string>;
  /** The event stream's cursor: set when the copy becomes visible, null while `sim.delay` hides it. */
  stream_seq: string | null;
  kind: "received" | "captured";
  raw_key: string;
  size: number;
  envelope_from: string | null;
  envelope_to: string;
  message_id: string | null;
  correlation_id: string | null;
  subject: Generated<string>;
  from_address: string | null;
  from_name: string | null;
  to: Json<MessageAddress[]>;
  cc: Json<MessageAddress[]>;
  reply_to: Json<MessageAddress[]>;
  headers: Json<[string, string][]>;
  labels: Json<Labels>;
  text_body: string | null;
  /** The html part when it is at most the view's inline cap (else `parts.html.key`). */
  html_body: string | null;
  /** The header block as received, under the same rule (else `parts.headers.key`). */
  header_block: string | null;
  parts: Json<MessageParts>;
  codes: ColumnType<string[], string[] | undefined, string[]>;
  links: Json<MessageLink[]>;
  parse_error: string | null;
  /** What the parser could not read of this message (the names of docs/messages-and-matching.md "Broken and hostile mail"): `truncated_parts`, `header_too_large`, `unparseable`, … */
  parse_warnings: ColumnType<string[], string[] | undefined, string[]>;
  /** What the parser checked (authentication, HTML support); null on messages stored before it did. */
  checks: ColumnType<MessageChecks | null, string | null | undefined, string | null>;
  complaint: Generated<boolean>;
  received_at: Date;
  visible_at: Date;
  expires_at: Date;
  deleted_at: Date | null;
}

/**
 * Every column of `messages`. The message reads are prepared statements and name their columns
 * rather than select `m.*`: a cached plan must not change its result type, so a migration that
 * adds a column would make every later run of a `m.*` statement fail on connections that
 * prepared it before. A record keyed by the table's columns, so the compiler insists on each.
 */
const MESSAGE_COLUMN_SET: Record<keyof MessagesTable, true> = {
  id: true,
  project_id: true,
  inbox_id: true,
  seq: true,
  stream_seq: true,
  kind: true,
  raw_key: true,
  size: true,
  envelope_from: true,
  envelope_to: true,
  message_id: true,
  correlation_id: true,
  subject: true,
  from_address: true,
  from_name: true,
  to: true,
  cc: true,
  reply_to: true,
  headers: true,
  labels: true,
  text_body: true,
  html_body: true,
  header_block: true,
  parts: true,
  codes: true,
  links: true,
  parse_error: true,
  parse_warnings: true,
  checks: true,
  complaint: true,
  received_at: true,
  visible_at: true,
  expires_at: true,
  deleted_at: true,
};
export const MESSAGE_COLUMNS = Object.keys(MESSAGE_COLUMN_SET) as (keyof MessagesTable)[];

export interface AttachmentsTable {
  id: string;
  message_id: string;
  project_id: string;
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  size: number;
  blob_key: string;
}

export interface UsageCountersTable {
  project_id: string;
  /** A calendar date `YYYY-MM-DD` (pg's DATE kept as text, see database.ts). */
  period_start: string;
  metric: string;
  used: ColumnType<string, number | undefined, number>;
}

/** The `storage.bytes` meter: bytes of the project's stored, not-deleted message copies. */
export interface StorageUsageTable {
  project_id: string;
  bytes: ColumnType<string, number | undefined, number>;
}

export interface BlobDeletionsTable {
  prefix: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface StreamTokensTable {
  token_hash: Buffer;
  project_id: string;
  inbox_id: string;
  api_key_id: string;
  expires_at: Date;
  created_at: ColumnType<Date, Date | undefined, never>;
}
