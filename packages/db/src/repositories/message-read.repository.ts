import { type Expression, type ExpressionBuilder, type Selectable, type SqlBool, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { type Db, inTransaction } from "../database";
import { type Database, type Labels, MESSAGE_COLUMNS } from "../tables";
import { compiledOnce } from "../compiled-once";
import { camelCaseRow } from "./camel-case-row";
import { liveAt, readableAt } from "./message-scopes";
import { prepareVaryingStatement } from "../prepared-statements";
import type { ParsedContent } from "./message.repository";
import { lowerMessageCounts, lowerStoredBytes } from "./counters";

export interface AttachmentRecord {
  id: string;
  position: number;
  filename: string | null;
  contentType: string;
  size: number;
  blobKey: string;
}

/**
 * A message as reads see it: what the parser learned of it (its attachments as stored), where
 * and when it was stored, its inbox's address. Never tombstoned, so without `deleted_at`.
 */
export interface MessageRecord extends Omit<ParsedContent, "attachments"> {
  id: string;
  projectId: string;
  inboxId: string;
  inboxAddress: string;
  /** Arrival order: the keyset of lists (a bigint, as text). */
  seq: string;
  /** The event stream's cursor; null while `sim.delay` hides the copy (see revealMessage). */
  streamSeq: string | null;
  kind: "received" | "captured";
  rawKey: string;
  /** The raw source's size in bytes. */
  size: number;
  envelopeFrom: string | null;
  envelopeTo: string;
  labels: Labels;
  complaint: boolean;
  receivedAt: Date;
  visibleAt: Date;
  expiresAt: Date;
  attachments: AttachmentRecord[];
}

/** The match fields of the wait and list filters (docs/messages-and-matching.md "Matching"); absent ones do not constrain. */
export interface MessageFilter {
  /** One message by id (the wait checks one arrival at a time). */
  id?: string;
  inboxId?: string;
  subjectContains?: string;
  fromContains?: string;
  toContains?: string;
  bodyContains?: string;
  correlationId?: string;
  headerContains?: Record<string, string>;
  since?: Date;
  hasCode?: boolean;
  hasLinkKind?: string;
  messageId?: string;
}

type MessageScope = ExpressionBuilder<Database & { m: Database["messages"] }, "m">;

/** Case-insensitive substring test (docs/messages-and-matching.md "Matching"); strpos needs no LIKE escaping. */
const contains = (haystack: ReturnType<typeof sql>, needle: string) => sql<boolean>`strpos(lower(${haystack}), lower(${needle})) > 0`;

/** One SQL condition per present filter, ANDed. */
function matches(eb: MessageScope, filter: MessageFilter) {
  const conditions = [];
  if (filter.id !== undefined) conditions.push(eb("m.id", "=", filter.id));
  if (filter.inboxId !== undefined) conditions.push(eb("m.inbox_id", "=", filter.inboxId));
  if (filter.subjectContains !== undefined) conditions.push(contains(sql`m.subject`, filter.subjectContains));
  if (filter.fromContains !== undefined) {
    conditions.push(contains(sql`concat_ws(' ', m.from_name, '<' || m.from_address || '>')`, filter.fromContains));
  }
  if (filter.toContains !== undefined) {
    // The To and Cc headers' names and addresses, never the envelope.
    conditions.push(
      contains(
        sql`coalesce((select string_agg(concat_ws(' ', e->>'name', '<' || (e->>'address') || '>'), ', ') from jsonb_array_elements(m."to" || m.cc) e), '')`,
        filter.toContains,
      ),
    );
  }
  if (filter.bodyContains !== undefined) conditions.push(contains(sql`m.subject || E'\n' || coalesce(m.text_body, '')`, filter.bodyContains));
  if (filter.correlationId !== undefined) conditions.push(eb("m.correlation_id", "=", filter.correlationId));
  if (filter.messageId !== undefined) conditions.push(eb("m.message_id", "=", filter.messageId));
  if (filter.since !== undefined) conditions.push(eb("m.received_at", ">=", filter.since));
  if (filter.hasCode !== undefined) conditions.push(filter.hasCode ? sql<boolean>`cardinality(m.codes) > 0` : sql<boolean>`cardinality(m.codes) = 0`);
  if (filter.hasLinkKind !== undefined) conditions.push(sql<boolean>`m.links @> ${JSON.stringify([{ kind: filter.hasLinkKind }])}::jsonb`);
  for (const [name, value] of Object.entries(filter.headerContains ?? {})) {
    conditions.push(
      sql<boolean>`exists (select 1 from jsonb_array_elements(m.headers) h where h->>0 = ${name.toLowerCase()} and strpos(lower(h->>1), lower(${value})) > 0)`,
    );
  }
  return eb.and(conditions);
}

/** Messages of the project that reads may see (not tombstoned, visible, not expired), with inbox address and attachments. */
function readableMessages(db: Db, projectId: string, now: Date) {
  return db
    .selectFrom("messages as m")
    .innerJoin("inboxes as i", "i.id", "m.inbox_id")
    .select(MESSAGE_COLUMNS.map((column) => `m.${column}` as const))
    .select("i.address as inbox_address")
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom("attachments as a")
          .select(["a.id", "a.position", "a.filename", "a.content_type", "a.size", "a.blob_key"])
          .whereRef("a.message_id", "=", "m.id")
          .orderBy("a.position"),
      ).as("attachment_rows"),
    )
    .where("m.project_id", "=", projectId)
    .where(readableAt(now));
}

type ReadableRow = Awaited<ReturnType<ReturnType<typeof readableMessages>["executeTakeFirstOrThrow"]>>;

// A readable row is never tombstoned: its deleted_at says nothing.
function toRecord({ from_address, from_name, attachment_rows, deleted_at: _, ...row }: ReadableRow): MessageRecord {
  return {
    ...camelCaseRow(row),
    from: from_address === null ? null : { address: from_address, name: from_name },
    attachments: attachment_rows.map((attachment) => camelCaseRow(attachment)),
  };
}

/**
 * The project's message `id` when a read may see it: not tombstoned, already visible
 * (`sim.delay`) and not expired. One query, attachments included.
 */
export async function findReadableMessage(db: Db, projectId: string, id: string, now = new Date()): Promise<MessageRecord | null> {
  const [found] = await readableById(db, projectId, id, now);
  return found ? toRecord(found) : null;
}

const readableById = compiledOnce(3, (db: Db, projectId: string, id: string, now: Date) => readableMessages(db, projectId, now).where("m.id", "=", id));

/**
 * One page of readable messages matching `filter`, newest arrival first. The keyset is the
 * arrival sequence, so messages stored between pages are never repeated nor make a page skip.
 */
export async function listReadableMessages(
  db: Db,
  projectId: string,
  filter: MessageFilter,
  page: { beforeSeq: string | null; limit: number },
  now = new Date(),
): Promise<MessageRecord[]> {
  let query = readableMessages(db, projectId, now).where((eb) => matches(eb as unknown as MessageScope, filter));
  if (page.beforeSeq !== null) query = query.where("m.seq", "<", page.beforeSeq);
  const compiled = query.orderBy("m.seq", "desc").limit(page.limit).compile();
  // A wait asks this about every arrival, by id: its text depends only on which filters are
  // present (every value is a parameter), so it is prepared. Only by id: one generic plan is
  // right for a lookup by primary key, not for a list whose best plan depends on the values
  // (an inbox of ten messages or of a million, a `since` of a minute or a month).
  if (filter.id !== undefined) prepareVaryingStatement(compiled.sql);
  const { rows } = await db.executeQuery(compiled);
  return rows.map(toRecord);
}

/**
 * Tombstones a readable message at once (it vanishes from reads, lists and waits); its bytes
 * are removed later by the reaper. False when there is no such readable message.
 */
export async function tombstoneMessage(db: Db, projectId: string, id: string, now = new Date()): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const erased = await tombstoneLiveMessages(trx, projectId, now, (eb) => eb.and([eb("id", "=", id), eb("visible_at", "<=", now)]));
    if (erased.length === 0) return false;
    // The inbox row, then the meter, as the store takes them: no lock cycle.
    await lowerMessageCounts(trx, erased);
    await lowerStoredBytes(trx, erased);
    return true;
  });
}

/**
 * Tombstones, at `now`, the project's live messages (not tombstoned, not expired) that `which`
 * picks: reads lose them at once, the reaper removes rows and bytes later. Returns what the
 * counters need of each; the caller lowers them (counters.ts) in the same transaction.
 */
export async function tombstoneLiveMessages(trx: Db, projectId: string, now: Date, which: (eb: ExpressionBuilder<Database, "messages">) => Expression<SqlBool>) {
  return trx
    .updateTable("messages")
    .set({ deleted_at: now })
    .where("project_id", "=", projectId)
    .where(liveAt(now))
    .where(which)
    .returning(["id", "inbox_id", "project_id", "size"])
    .execute();
}

/** What an event stream `message` frame carries: the envelope and extractions, no body. */
export type StreamMessageRow = Pick<
  Selectable<Database["messages"]>,
  "id" | "inbox_id" | "received_at" | "subject" | "from_address" | "from_name" | "to" | "correlation_id" | "codes" | "links"
> & { stream_seq: string };

/**
 * The inbox's messages that became visible after stream cursor `afterSeq`, oldest first: the
 * one query an event stream makes per arrival (and on resume). Erased and expired messages
 * are left out, as from every read.
 */
export async function listStreamMessages(
  db: Db,
  projectId: string,
  inboxId: string,
  afterSeq: string,
  limit: number,
  now = new Date(),
): Promise<StreamMessageRow[]> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "inbox_id", "received_at", "subject", "from_address", "from_name", "to", "correlation_id", "codes", "links", "stream_seq"])
    .where("project_id", "=", projectId)
    .where("inbox_id", "=", inboxId)
    .where("stream_seq", ">", afterSeq)
    .where(liveAt(now))
    .orderBy("stream_seq")
    .limit(limit)
    .execute();
  return rows as StreamMessageRow[];
}

/** What a message's webhook event tells: its stream frame's fields and its inbox's address. */
export type MessageEventSource = Omit<StreamMessageRow, "stream_seq"> & { inbox_address: string };

/**
 * The message a webhook event is about, read when the event is first delivered; null once it
 * was deleted or erased (an event never carries what its owner removed) or its inbox is gone.
 */
export async function findMessageEventSource(db: Db, projectId: string, messageId: string): Promise<MessageEventSource | null> {
  const row = await db
    .selectFrom("messages as m")
    .innerJoin("inboxes as i", "i.id", "m.inbox_id")
    .select(["m.id", "m.inbox_id", "m.received_at", "m.subject", "m.from_address", "m.from_name", "m.to", "m.correlation_id", "m.codes", "m.links", "i.address as inbox_address"])
    .where("m.project_id", "=", projectId)
    .where("m.id", "=", messageId)
    .where("m.deleted_at", "is", null)
    .executeTakeFirst();
  return (row as MessageEventSource | undefined) ?? null;
}

/** The inbox's newest stream cursor ("0" when nothing was ever visible): where a fresh stream starts. */
export async function latestStreamSeq(db: Db, projectId: string, inboxId: string): Promise<string> {
  const row = await db
    .selectFrom("messages")
    .select(sql<string>`coalesce(max(stream_seq), 0)::text`.as("latest"))
    .where("project_id", "=", projectId)
    .where("inbox_id", "=", inboxId)
    .executeTakeFirstOrThrow();
  return row.latest;
}
