import { Readable } from "node:stream";
import { INLINE_PART_MAX_BYTES, METRICS, MailstopError, RETENTION_SECONDS, captureTag, inboxAddress, newId, periodStart } from "@mailstop/core";
import { blobKeys } from "@mailstop/blob-store";
import { type Labels, type MessageParts, type ParsedContent, type StoredCopy, ensureInbox, revealMessage, storeMessageBatch } from "@mailstop/db";
import { type Delivery, type ParseMessageJob, PermanentJobError, type PublishArrivalJob } from "@mailstop/messaging";
import { buildContent, headerBlock, storable, unparsedContent } from "./content";
import type { ParserDeps } from "./deps";
import { readMessage } from "./read-message";
import { StoreBatcher } from "./store-batcher";

/** The capture inbox of a recipient, created on first use with `labels.recipient`. */
async function captureInbox(deps: ParserDeps, delivery: Delivery, recipient: string): Promise<string> {
  const tag = captureTag(recipient);
  if (tag === null) throw new PermanentJobError(`capture recipient ${recipient} cannot make a tag`);
  const { inbox } = await ensureInbox(deps.db, newId("inbox"), {
    projectId: delivery.project_id,
    domainId: null,
    tag,
    address: inboxAddress({ projectKey: delivery.project_key, tag, domain: null, sharedDomain: deps.config.sharedDomain }),
    labels: { recipient },
    retentionSeconds: RETENTION_SECONDS.default,
  });
  return inbox.id;
}

/**
 * The raw source: on a job's first attempt, the copy the edge put in the job; else (a larger
 * source, or a retry) the stored object. A retry reads the store because its rows may have
 * been stored, erased and reaped since the first attempt, and an erased message must not come
 * back: a retry whose source is gone stores nothing. So does a job whose transaction the edge
 * refused after its put failed (it removes that raw source).
 */
async function rawSource(deps: ParserDeps, job: ParseMessageJob, delivery: Delivery, attempt: number): Promise<Readable> {
  if (job.raw !== undefined && attempt === 1) return Readable.from([Buffer.from(job.raw, "base64")]);
  const raw = await deps.blobs.get(delivery.raw_key);
  if (raw === null) throw new PermanentJobError(`raw source ${delivery.raw_key} is gone: the transaction was not accepted, or its messages were erased`);
  return raw;
}

/**
 * Reads the raw source once. The text part lives in the row (`text_body`), and so do the html
 * part and the header block up to INLINE_PART_MAX_BYTES: a small message reaches the database
 * without touching the object store. Attachments and larger parts are stored under the
 * transaction's prefix (the same keys on every retry). A store failure is retried; a source
 * mailparser cannot read becomes a raw-only message with its parse failure recorded.
 */
async function parseDelivery(deps: ParserDeps, job: ParseMessageJob, delivery: Delivery, attempt: number): Promise<ParsedContent> {
  const transactionId = job.transaction_id;
  const raw = await rawSource(deps, job, delivery, attempt);
  try {
    const read = await readMessage(raw, async (position, content, contentType) => {
      const { size } = await deps.blobs.put(blobKeys.attachment(delivery.project_id, transactionId, position), content, { contentType });
      return size;
    });
    // Sized as stored: NUL and lone surrogates become U+FFFD (see storable).
    const text = storable(read.text);
    const parts: MessageParts = {};
    if (text !== null) parts.text = { size: Buffer.byteLength(text, "utf8") };
    const inRow = async (part: "html" | "headers", body: string | null): Promise<string | null> => {
      if (body === null) return null;
      const bytes = Buffer.from(body, "utf8");
      if (bytes.length <= INLINE_PART_MAX_BYTES) {
        parts[part] = { size: bytes.length };
        return body;
      }
      const key = blobKeys.part(delivery.project_id, transactionId, part);
      await deps.blobs.put(key, bytes, { contentType: `text/${part === "html" ? "html" : "plain"}; charset=utf-8` });
      parts[part] = { key, size: bytes.length };
      return null;
    };
    // Both on the path to the arrival being visible: a large pair goes up together.
    const [htmlBody, headerBlockBody] = await Promise.all([inRow("html", storable(read.html)), inRow("headers", storable(headerBlock(read)))]);
    return buildContent(
      read,
      { parts, htmlBody, headerBlock: headerBlockBody },
      read.attachments.map((attachment) => ({ ...attachment, blobKey: blobKeys.attachment(delivery.project_id, transactionId, attachment.position) })),
    );
  } catch (error) {
    if (error instanceof MailstopError) throw error;
    deps.logger.warn({ err: error, transaction_id: transactionId }, "message could not be parsed; stored raw only");
    return unparsedContent(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Announces arrivals after the rows are committed. A `sim.delay` copy has no stream cursor
 * yet: the publish-arrival job reveals and announces it when its delay is over.
 */
async function announce(deps: ParserDeps, copies: readonly StoredCopy[]): Promise<void> {
  for (const copy of copies) {
    if (copy.streamSeq !== null) {
      await deps.bus.publishArrival({ inbox_id: copy.inboxId, message_id: copy.messageId, seq: copy.streamSeq });
      continue;
    }
    const delayMs = Math.max(0, copy.visibleAt.getTime() - Date.now());
    await deps.queue.enqueue("publish-arrival", { inbox_id: copy.inboxId, message_id: copy.messageId }, { jobId: `arrival-${copy.messageId}`, delayMs });
  }
}

/** The publish-arrival job: a delayed copy becomes visible to streams, then waiters and streams hear of it. */
export function publishArrivalJob(deps: ParserDeps) {
  return async (job: PublishArrivalJob): Promise<void> => {
    const seq = await revealMessage(deps.db, job.inbox_id, job.message_id);
    // Erased or reaped before its delay was over: nobody is told of it.
    if (seq === null) return;
    await deps.bus.publishArrival({ ...job, seq });
  };
}

/**
 * The parse-message job: per project of the transaction, parse the raw source, store one copy
 * per recipient inbox in one transaction, meter it, then announce the arrivals. Retried or
 * duplicated jobs store nothing twice (see storeMessageBatch) and announce again, which
 * waiters tolerate. The jobs running at once in this process commit together (StoreBatcher).
 */
export function parseMessageJob(deps: ParserDeps) {
  const batcher = new StoreBatcher((inputs) => storeMessageBatch(deps.db, inputs));
  return async (job: ParseMessageJob, attempt = 1): Promise<void> => {
    const receivedAt = new Date(job.received_at);
    for (const delivery of job.deliveries) {
      // Parsed first: a transaction whose raw source is gone must not leave capture inboxes behind.
      const content = await parseDelivery(deps, job, delivery, attempt);
      const recipients = await Promise.all(
        delivery.recipients.map(async (recipient) => ({ ...recipient, inboxId: recipient.inbox_id ?? (await captureInbox(deps, delivery, recipient.address)) })),
      );
      const copies = await batcher.store({
        projectId: delivery.project_id,
        kind: job.kind,
        rawKey: delivery.raw_key,
        size: job.size,
        envelopeFrom: job.envelope_from,
        receivedAt,
        metric: job.kind === "captured" ? METRICS.captured : METRICS.received,
        periodStart: periodStart(receivedAt),
        content,
        copies: recipients.map((recipient) => ({
          inboxId: recipient.inboxId,
          newMessageId: newId("message"),
          newAttachmentIds: content.attachments.map(() => newId("attachment")),
          envelopeTo: recipient.address,
          visibleAt: recipient.sim === "delay" ? new Date(receivedAt.getTime() + deps.config.smtp.simDelayMs) : receivedAt,
          complaint: recipient.sim === "complaint",
          labels: (job.kind === "captured" ? { recipient: recipient.address } : {}) satisfies Labels as Labels,
        })),
      });
      for (const copy of copies.filter((c) => c.inserted)) {
        const recipient = recipients.find((r) => r.inboxId === copy.inboxId);
        if (recipient?.sim === "complaint") deps.logger.info({ event: "message.complaint", message_id: copy.messageId, inbox_id: copy.inboxId }, "complaint recorded");
      }
      await announce(deps, copies);
    }
  };
}
