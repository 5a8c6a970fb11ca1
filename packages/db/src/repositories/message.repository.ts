import { sql } from "kysely";
import type { Db } from "../database";
import type { Labels, MessageAddress, MessageLink, MessageParts } from "../tables";

/** What the parser learned from one raw source; shared by every copy of it. */
export interface ParsedContent {
  messageId: string | null;
  correlationId: string | null;
  subject: string;
  from: MessageAddress | null;
  to: MessageAddress[];
  cc: MessageAddress[];
  replyTo: MessageAddress[];
  headers: [string, string][];
  textBody: string | null;
  parts: MessageParts;
  codes: string[];
  links: MessageLink[];
  parseError: string | null;
  attachments: { position: number; filename: string | null; contentType: string; contentId: string | null; size: number; blobKey: string }[];
}

/** One stored copy per recipient inbox. */
export interface MessageCopy {
  inboxId: string;
  /** The id this copy gets if it is new; a retried job finds the copy's existing id instead. */
  newMessageId: string;
  newAttachmentIds: string[];
  envelopeTo: string;
  visibleAt: Date;
  complaint: boolean;
  labels: Labels;
}

export interface StoredCopy {
  inboxId: string;
  messageId: string;
  /** The event stream cursor; null while `sim.delay` hides the copy (see {@link revealMessage}). */
  streamSeq: string | null;
  visibleAt: Date;
  /** False when an earlier attempt of the same job had already stored it. */
  inserted: boolean;
}

/** One parsed raw source and the copies to store of it. */
export interface StoreMessageInput {
  projectId: string;
  kind: "received" | "captured";
  rawKey: string;
  size: number;
  envelopeFrom: string | null;
  receivedAt: Date;
  metric: string;
  periodStart: string;
  content: ParsedContent;
  copies: MessageCopy[];
}

/**
 * Stores every copy of one raw source in one transaction. Idempotent on (raw object, inbox):
 * a job retried after a crash, or delivered twice, finds its copies and inserts nothing, so
 * counters and metering move once. Copies whose inbox was deleted meanwhile are skipped.
 */
export async function storeMessageCopies(db: Db, input: StoreMessageInput): Promise<StoredCopy[]> {
  return (await storeMessageBatch(db, [input]))[0]!;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * {@link storeMessageCopies} for several raw sources at once, in one transaction (a group
 * commit): the inbox locks, the commit and its fsync are paid once for the batch instead of
 * once per message, and messages into one inbox no longer queue behind each other's commits.
 * Returns the stored copies of each input, in input order. All or nothing: when it fails,
 * nothing of the batch is stored.
 */
export async function storeMessageBatch(db: Db, inputs: readonly StoreMessageInput[]): Promise<StoredCopy[][]> {
  const results: StoredCopy[][] = inputs.map(() => []);
  // Inbox rows are locked in id order, so two transactions sharing inboxes never deadlock;
  // within an inbox, copies take their sequence numbers in input order.
  const entries = inputs
    .flatMap((input, index) => input.copies.map((copy) => ({ index, input, copy })))
    .sort((a, b) => byString(a.copy.inboxId, b.copy.inboxId) || a.index - b.index);
  if (entries.length === 0) return results;

  return db.transaction().execute(async (trx) => {
    // The inbox rows are locked before any message takes its sequence numbers, so within an
    // inbox `seq` and `stream_seq` follow commit order (a stream that has read n never later
    // finds a smaller one committed). FOR NO KEY UPDATE is the lock the counter update takes anyway;
    // an inbox deleted meanwhile (or of another project) is simply absent and its copy skipped.
    const inboxRows = await trx
      .selectFrom("inboxes")
      .select(["id", "project_id", "retention_seconds"])
      .where("id", "in", [...new Set(entries.map((entry) => entry.copy.inboxId))])
      .orderBy("id")
      .forNoKeyUpdate()
      .execute();
    const inboxes = new Map(inboxRows.map((row) => [row.id, row]));
    const live = entries.filter((entry) => inboxes.get(entry.copy.inboxId)?.project_id === entry.input.projectId);
    if (live.length === 0) return results;

    const insertedRows = await trx
      .insertInto("messages")
      .values(
        live.map(({ input, copy }) => {
          const { content } = input;
          return {
            id: copy.newMessageId,
            project_id: input.projectId,
            inbox_id: copy.inboxId,
            kind: input.kind,
            raw_key: input.rawKey,
            size: input.size,
            envelope_from: input.envelopeFrom,
            envelope_to: copy.envelopeTo,
            message_id: content.messageId,
            correlation_id: content.correlationId,
            subject: content.subject,
            from_address: content.from?.address ?? null,
            from_name: content.from?.name ?? null,
            to: JSON.stringify(content.to),
            cc: JSON.stringify(content.cc),
            reply_to: JSON.stringify(content.replyTo),
            headers: JSON.stringify(content.headers),
            labels: JSON.stringify(copy.labels),
            text_body: content.textBody,
            parts: JSON.stringify(content.parts),
            codes: content.codes,
            links: JSON.stringify(content.links),
            parse_error: content.parseError,
            complaint: copy.complaint,
            received_at: input.receivedAt,
            visible_at: copy.visibleAt,
            // Visible now: streamed now. A later `visible_at` is revealed by revealMessage.
            stream_seq: copy.visibleAt.getTime() <= input.receivedAt.getTime() ? sql<string>`nextval('message_stream_seq')` : null,
            expires_at: new Date(input.receivedAt.getTime() + inboxes.get(copy.inboxId)!.retention_seconds * 1000),
          };
        }),
      )
      .onConflict((oc) => oc.columns(["raw_key", "inbox_id"]).doNothing())
      .returning(["id", "inbox_id", "raw_key", "stream_seq", "visible_at"])
      .execute();

    // Rows come back by key, not by position. A copy whose key was already stored (a retried
    // job, or the same job twice in this batch) finds the existing row instead.
    const keyOf = (rawKey: string, inboxId: string) => `${rawKey}\n${inboxId}`;
    const fresh = new Map(insertedRows.map((row) => [keyOf(row.raw_key, row.inbox_id), row]));
    const claimed = live.map((entry) => {
      const key = keyOf(entry.input.rawKey, entry.copy.inboxId);
      const row = fresh.get(key);
      if (row) fresh.delete(key);
      return { ...entry, row };
    });
    const stale = claimed.filter((entry) => entry.row === undefined);
    const existingRows =
      stale.length === 0
        ? []
        : await trx
            .selectFrom("messages")
            .select(["id", "inbox_id", "raw_key", "stream_seq", "visible_at"])
            .where((eb) =>
              eb.or(stale.map(({ input, copy }) => eb.and([eb("project_id", "=", input.projectId), eb("raw_key", "=", input.rawKey), eb("inbox_id", "=", copy.inboxId)]))),
            )
            .execute();
    const existing = new Map(existingRows.map((row) => [keyOf(row.raw_key, row.inbox_id), row]));

    const attachments = claimed.flatMap(({ input, copy, row }) =>
      row === undefined
        ? []
        : input.content.attachments.map((attachment, index) => ({
            id: copy.newAttachmentIds[index]!,
            message_id: row.id,
            project_id: input.projectId,
            position: attachment.position,
            filename: attachment.filename,
            content_type: attachment.contentType,
            content_id: attachment.contentId,
            size: attachment.size,
            blob_key: attachment.blobKey,
          })),
    );
    if (attachments.length > 0) await trx.insertInto("attachments").values(attachments).execute();

    const perInbox = new Map<string, { projectId: string; count: number; last: Date }>();
    const perMeter = new Map<string, { projectId: string; periodStart: string; metric: string; count: number }>();
    for (const { index, input, copy, row } of claimed) {
      if (row === undefined) {
        const found = existing.get(keyOf(input.rawKey, copy.inboxId));
        if (found) results[index]!.push({ inboxId: copy.inboxId, messageId: found.id, streamSeq: found.stream_seq, visibleAt: found.visible_at, inserted: false });
        continue;
      }
      results[index]!.push({ inboxId: copy.inboxId, messageId: row.id, streamSeq: row.stream_seq, visibleAt: row.visible_at, inserted: true });
      const inbox = perInbox.get(copy.inboxId) ?? { projectId: input.projectId, count: 0, last: input.receivedAt };
      inbox.count += 1;
      if (input.receivedAt > inbox.last) inbox.last = input.receivedAt;
      perInbox.set(copy.inboxId, inbox);
      const meterKey = `${input.projectId}\n${input.periodStart}\n${input.metric}`;
      const meter = perMeter.get(meterKey) ?? { projectId: input.projectId, periodStart: input.periodStart, metric: input.metric, count: 0 };
      meter.count += 1;
      perMeter.set(meterKey, meter);
    }
    for (const [inboxId, { projectId, count, last }] of [...perInbox].sort((a, b) => byString(a[0], b[0]))) {
      await trx
        .updateTable("inboxes")
        .set({
          message_count: sql<number>`message_count + ${count}`,
          last_message_at: sql<Date>`greatest(last_message_at, ${last})`,
        })
        .where("id", "=", inboxId)
        .where("project_id", "=", projectId)
        .execute();
    }
    // Counter rows in key order too: two batches metering the same projects never deadlock.
    for (const [, meter] of [...perMeter].sort((a, b) => byString(a[0], b[0]))) {
      await trx
        .insertInto("usage_counters")
        .values({ project_id: meter.projectId, period_start: meter.periodStart, metric: meter.metric, used: meter.count })
        .onConflict((oc) => oc.columns(["project_id", "period_start", "metric"]).doUpdateSet({ used: sql<number>`usage_counters.used + ${meter.count}` }))
        .execute();
    }
    return results;
  });
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
