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

/**
 * Stores every copy of one raw source in one transaction. Idempotent on (raw object, inbox):
 * a job retried after a crash, or delivered twice, finds its copies and inserts nothing, so
 * counters and metering move once. Copies whose inbox was deleted meanwhile are skipped.
 */
export async function storeMessageCopies(
  db: Db,
  input: {
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
  },
): Promise<StoredCopy[]> {
  if (input.copies.length === 0) return [];
  // Inbox rows are updated in id order, so two transactions sharing inboxes never deadlock.
  const copies = [...input.copies].sort((a, b) => (a.inboxId < b.inboxId ? -1 : a.inboxId > b.inboxId ? 1 : 0));
  return db.transaction().execute(async (trx) => {
    // The inbox rows are locked before any message takes its sequence numbers, so within an
    // inbox `seq` and `stream_seq` follow commit order (a stream that has read n never later
    // finds a smaller one committed). FOR NO KEY UPDATE is the lock the counter update takes anyway;
    // an inbox deleted meanwhile is simply absent and its copy skipped.
    const inboxes = await trx
      .selectFrom("inboxes")
      .select(["id", "retention_seconds"])
      .where("project_id", "=", input.projectId)
      .where(
        "id",
        "in",
        copies.map((copy) => copy.inboxId),
      )
      .orderBy("id")
      .forNoKeyUpdate()
      .execute();
    const retention = new Map(inboxes.map((row) => [row.id, row.retention_seconds]));
    const { content } = input;
    const stored: StoredCopy[] = [];

    for (const copy of copies) {
      const retentionSeconds = retention.get(copy.inboxId);
      if (retentionSeconds === undefined) continue;
      const inserted = await trx
        .insertInto("messages")
        .values({
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
          expires_at: new Date(input.receivedAt.getTime() + retentionSeconds * 1000),
        })
        .onConflict((oc) => oc.columns(["raw_key", "inbox_id"]).doNothing())
        .returning(["id", "stream_seq", "visible_at"])
        .executeTakeFirst();

      if (!inserted) {
        const existing = await trx
          .selectFrom("messages")
          .select(["id", "stream_seq", "visible_at"])
          .where("project_id", "=", input.projectId)
          .where("raw_key", "=", input.rawKey)
          .where("inbox_id", "=", copy.inboxId)
          .executeTakeFirstOrThrow();
        stored.push({ inboxId: copy.inboxId, messageId: existing.id, streamSeq: existing.stream_seq, visibleAt: existing.visible_at, inserted: false });
        continue;
      }

      if (content.attachments.length > 0) {
        await trx
          .insertInto("attachments")
          .values(
            content.attachments.map((attachment, index) => ({
              id: copy.newAttachmentIds[index]!,
              message_id: inserted.id,
              project_id: input.projectId,
              position: attachment.position,
              filename: attachment.filename,
              content_type: attachment.contentType,
              content_id: attachment.contentId,
              size: attachment.size,
              blob_key: attachment.blobKey,
            })),
          )
          .execute();
      }
      await trx
        .updateTable("inboxes")
        .set({
          message_count: sql<number>`message_count + 1`,
          last_message_at: sql<Date>`greatest(last_message_at, ${input.receivedAt})`,
        })
        .where("id", "=", copy.inboxId)
        .where("project_id", "=", input.projectId)
        .execute();
      stored.push({ inboxId: copy.inboxId, messageId: inserted.id, streamSeq: inserted.stream_seq, visibleAt: inserted.visible_at, inserted: true });
    }

    const insertedCount = stored.filter((copy) => copy.inserted).length;
    if (insertedCount > 0) {
      await trx
        .insertInto("usage_counters")
        .values({ project_id: input.projectId, period_start: input.periodStart, metric: input.metric, used: insertedCount })
        .onConflict((oc) => oc.columns(["project_id", "period_start", "metric"]).doUpdateSet({ used: sql<number>`usage_counters.used + ${insertedCount}` }))
        .execute();
    }
    return stored;
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
