import { newId } from "@mailstop/core";
import { sql } from "kysely";
import type { Db } from "../database";
import type { LinkCheck } from "../tables/message.table";
import { compiledOnce } from "../compiled-once";
import { readableAt } from "./message-scopes";
import { STORE_SQL, addCopyFields, addSourceFields, bodiesOf } from "./message-store.columns";
import type { MessageCopy, StoreMessageInput, StoredCopy } from "./message-store.types";

export type { MessageCopy, ParsedContent, StoreMessageInput, StoredCopy } from "./message-store.types";

/**
 * Stores every copy of one raw source in one transaction. Idempotent on (raw object, inbox):
 * a job retried after a crash, or delivered twice, finds its copies and inserts nothing, so
 * counters and metering move once. Copies whose inbox was deleted meanwhile are skipped.
 */
export async function storeMessageCopies(db: Db, input: StoreMessageInput): Promise<StoredCopy[]> {
  return (await storeMessageBatch(db, [input]))[0]!;
}

/** One parsed source as the store statement reads it (`jsonb_to_recordset`): its bodies travel apart, see storeStatement. */
function contentRecord(input: StoreMessageInput, index: number) {
  const record: Record<string, unknown> = {
    i: index,
    metric: input.metric,
    period_start: input.periodStart,
    attachments: input.content.attachments.map((attachment, n) => ({
      n,
      position: attachment.position,
      filename: attachment.filename,
      content_type: attachment.contentType,
      content_id: attachment.contentId,
      size: attachment.size,
      blob_key: attachment.blobKey,
    })),
  };
  addSourceFields(record, input);
  return record;
}

/**
 * One copy of source `i`, in input order (`ord`), with the ids of the webhook events it raises
 * if it is new (a copy stored before raises none, so a retry's fresh ids are never used).
 */
function copyRecord(copy: MessageCopy, index: number, ord: number) {
  const record: Record<string, unknown> = {
    ord,
    i: index,
    attachment_ids: copy.newAttachmentIds,
    arrival_event_id: newId("webhookEvent"),
    complaint_event_id: copy.complaint ? newId("webhookEvent") : null,
  };
  addCopyFields(record, copy);
  return record;
}

/**
 * The whole store as one statement, so a batch costs one round trip and one commit. In order:
 * the inbox rows are locked in id order before any message takes its sequence numbers (so
 * within an inbox `seq` and `stream_seq` follow commit order, and two batches sharing inboxes
 * never deadlock; FOR NO KEY UPDATE is the lock the counter update takes anyway); copies whose
 * inbox is gone or of another project are skipped; the insert skips copies already stored
 * (a retried job, or the same job twice in the batch), and only the rows it inserted move the
 * inbox counters, the usage meters and the storage.bytes meter (in key order, for the same
 * deadlock reason) and gain attachments and raise their webhook events (an outbox row per subscribed endpoint, due when
 * the copy becomes visible, its body rendered at the first attempt). Volatile `nextval` is
 * evaluated after the ORDER BY, so copies into one inbox take their numbers in input order.
 *
 * Each source's fields travel once however many copies it has, and its bodies in one text[]
 * parameter rather than inside the jsonb: PostgreSQL refuses a jsonb value over 256 MB, which
 * a large message to many inboxes would reach if each copy carried its content. Written as
 * SQL: kysely has no form for `jsonb_to_recordset`'s column list, and the statement reads best
 * whole. Its message columns are listed by STORE_SQL, generated from the one column list
 * (MESSAGE_COLUMN_SOURCES) when the module loads. Its text never changes, so it is compiled
 * once and prepared (compiledOnce), which halved its time.
 */
const storeStatement = compiledOnce(4, (db: Db, contents: string, copies: string, bodies: (string | null)[], completed: string[]) => {
  const statement = sql<{ ord: number; live: boolean; id: string | null; stream_seq: string | null; visible_at: Date | null; raised: boolean }>`
    with content as (
      select * from jsonb_to_recordset(${contents}::jsonb) as c(
        i int, ${sql.raw(STORE_SQL.sourceFields)}, metric text, period_start date, attachments jsonb)
    ),
    input as (
      select k.ord, ${sql.raw(STORE_SQL.copySelect)}, k.attachment_ids, k.arrival_event_id, k.complaint_event_id, c.*
      from jsonb_to_recordset(${copies}::jsonb) as k(ord int, i int, ${sql.raw(STORE_SQL.copyFields)}, attachment_ids jsonb, arrival_event_id text, complaint_event_id text)
      join content c on c.i = k.i
    ),
    locked as (
      select i.id, i.project_id, i.retention_seconds from inboxes i
      where i.id in (select inbox_id from input) order by i.id for no key update
    ),
    inserted as (
      insert into messages (${sql.raw(STORE_SQL.insertColumns)})
      select ${sql.raw(STORE_SQL.insertValues)}
      from input v join locked l on l.id = v.inbox_id and l.project_id = v.project_id
        cross join (select ${bodies}::text[]) as p(bodies)
      order by v.inbox_id, v.ord
      on conflict (raw_key, inbox_id) do nothing
      returning id, inbox_id, raw_key, stream_seq, visible_at, received_at
    ),
    -- The input rows the insert took (a skipped duplicate's id is not in it).
    fresh as (
      select v.*, m.stream_seq as new_stream_seq, m.visible_at as new_visible_at
      from inserted m join input v on v.id = m.id
    ),
    files as (
      insert into attachments (id, message_id, project_id, position, filename, content_type, content_id, size, blob_key)
      select f.attachment_ids ->> a.n, f.id, f.project_id, a.position, a.filename, a.content_type, a.content_id, a.size, a.blob_key
      from fresh f cross join jsonb_to_recordset(f.attachments) as a(n int, position int, filename text, content_type text, content_id text, size int, blob_key text)
    ),
    counted as (
      update inboxes i set message_count = i.message_count + c.n, last_message_at = greatest(i.last_message_at, c.last)
      from (select inbox_id, count(*) as n, max(received_at) as last from fresh group by inbox_id) c
      where i.id = c.inbox_id
    ),
    metered as (
      insert into usage_counters (project_id, period_start, metric, used)
      select project_id, period_start, metric, count(*) from fresh
      group by project_id, period_start, metric order by project_id, period_start, metric
      on conflict (project_id, period_start, metric) do update set used = usage_counters.used + excluded.used
    ),
    -- The storage.bytes meter gains every new copy's size (see counters.ts).
    stored as (
      insert into storage_usage (project_id, bytes)
      select project_id, sum(size) from fresh group by project_id order by project_id
      on conflict (project_id) do update set bytes = storage_usage.bytes + excluded.bytes
    ),
    -- Webhook events of the new copies, in the same transaction (an outbox): the arrival, and a
    -- sim.complaint's complaint, for every enabled endpoint of the project subscribed to it.
    raised as (
      insert into webhook_deliveries (event_id, webhook_id, project_id, event_type, subject_id, next_attempt_at)
      select e.event_id, w.id, w.project_id, e.event_type, e.message_id, e.due
      from (
        select f.arrival_event_id as event_id, 'message.' || f.kind as event_type, f.id as message_id, f.project_id, f.new_visible_at as due from fresh f
        union all
        select f.complaint_event_id, 'message.complaint', f.id, f.project_id, f.new_visible_at from fresh f where f.complaint_event_id is not null
      ) e
      join webhooks w on w.project_id = e.project_id and w.enabled and e.event_type = any(w.events)
      on conflict do nothing
      returning subject_id
    ),
    -- The accept ledger's rows of the transactions this batch completes: done with their rows.
    completed as (
      update accepted_transactions set state = 'done', done_at = now()
      where id = any(${completed}::text[]) and state = 'open'
    )
    select v.ord, l.id is not null as live, f.id, f.new_stream_seq as stream_seq, f.new_visible_at as visible_at,
      exists (select 1 from raised r where r.subject_id = f.id) as raised
    from input v
    left join locked l on l.id = v.inbox_id and l.project_id = v.project_id
    left join fresh f on f.ord = v.ord
    order by v.ord`;
  return { compile: () => statement.compile(db) };
});

/**
 * {@link storeMessageCopies} for several raw sources at once, in one statement (a group
 * commit, see storeStatement): the inbox locks, the commit and its fsync are paid once for the
 * batch instead of once per message. Returns the stored copies of each input, in input order.
 * All or nothing: when it fails, nothing of the batch is stored.
 */
export async function storeMessageBatch(db: Db, inputs: readonly StoreMessageInput[]): Promise<StoredCopy[][]> {
  const entries = inputs.flatMap((input, index) => input.copies.map((copy) => ({ index, input, copy })));
  const results: StoredCopy[][] = inputs.map(() => []);
  if (entries.length === 0) return results;

  const rows = await storeStatement(
    db,
    JSON.stringify(inputs.map(contentRecord)),
    JSON.stringify(entries.map(({ index, copy }, ord) => copyRecord(copy, index, ord))),
    bodiesOf(inputs),
    inputs.flatMap((input) => (input.completesTransaction === null ? [] : [input.completesTransaction])),
  );
  // A live copy the statement did not insert was stored before (a retried job, or the same
  // job twice in this batch): it finds the existing row instead. The statement has committed.
  const stale = rows.filter((row) => row.live && row.id === null).map((row) => entries[row.ord]!);
  const keyOf = (rawKey: string, inboxId: string) => `${rawKey}\n${inboxId}`;
  const existing = new Map(
    (stale.length === 0
      ? []
      : await db
          .selectFrom("messages")
          .select(["id", "inbox_id", "raw_key", "stream_seq", "visible_at"])
          .where((eb) => eb.or(stale.map(({ input, copy }) => eb.and([eb("project_id", "=", input.projectId), eb("raw_key", "=", input.rawKey), eb("inbox_id", "=", copy.inboxId)]))))
          .execute()
    ).map((row) => [keyOf(row.raw_key, row.inbox_id), row]),
  );
  for (const row of rows) {
    const { index, input, copy } = entries[row.ord]!;
    if (row.id !== null) {
      results[index]!.push({ inboxId: copy.inboxId, messageId: row.id, streamSeq: row.stream_seq, visibleAt: row.visible_at!, inserted: true, raisedWebhookEvents: row.raised });
      continue;
    }
    const found = row.live ? existing.get(keyOf(input.rawKey, copy.inboxId)) : undefined;
    if (found) results[index]!.push({ inboxId: copy.inboxId, messageId: found.id, streamSeq: found.stream_seq, visibleAt: found.visible_at, inserted: false, raisedWebhookEvents: false });
  }
  return results;
}

/**
 * Gives a `sim.delay` copy its stream cursor when it becomes visible, under the same inbox
 * lock that inserts take, so the cursor still follows commit order. Idempotent: a retried job
 * gets the cursor already given. Null when the message is gone (erased, expired, inbox deleted).
 */
export async function revealMessage(db: Db, inboxId: string, messageId: string): Promise<string | null> {
  return db.transaction().execute(async (trx) => {
    const inbox = await trx.selectFrom("inboxes").select("id").where("id", "=", inboxId).forNoKeyUpdate().executeTakeFirst();
    if (!inbox) return null;
    const row = await trx
      .updateTable("messages")
      .set({ stream_seq: sql<string>`coalesce(stream_seq, nextval('message_stream_seq'))` })
      .where("id", "=", messageId)
      .where("inbox_id", "=", inboxId)
      .where("deleted_at", "is", null)
      .returning("stream_seq")
      .executeTakeFirst();
    return row?.stream_seq ?? null;
  });
}

/**
 * Stores a link check (POST /v1/messages/{id}/checks/links) in the readable message's
 * `checks.links`, replacing the one before and leaving its other checks as they are (one jsonb
 * concatenation, in the statement: two checks at once cannot lose the other's write). False
 * when there is no such readable message any more (deleted, erased or expired meanwhile).
 */
export async function storeLinkCheck(db: Db, projectId: string, messageId: string, links: LinkCheck, now = new Date()): Promise<boolean> {
  const row = await db
    .updateTable("messages")
    .set({ checks: sql<string>`coalesce(checks, '{}'::jsonb) || jsonb_build_object('links', ${JSON.stringify(links)}::jsonb)` })
    .where("project_id", "=", projectId)
    .where("id", "=", messageId)
    .where(readableAt(now))
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}
