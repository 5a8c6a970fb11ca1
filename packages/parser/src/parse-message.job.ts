import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { INLINE_PART_MAX_BYTES, METRICS, MailstopError, RETENTION_SECONDS, captureTag, inboxAddress, newId, periodStart, sha256, systemSource } from "@mailstop/core";
import { blobKeys } from "@mailstop/blob-store";
import {
  type Labels,
  type MessageParts,
  type ParsedContent,
  type StoreMessageInput,
  type StoredCopy,
  audited,
  ensureInbox,
  isDatabaseUnreachable,
  markTransactionsDone,
  revealMessage,
  sqlState,
  storeMessageBatch,
} from "@mailstop/db";
import { type Delivery, JOB_OPTIONS, type ParseMessageJob, PermanentJobError, type PublishArrivalJob } from "@mailstop/messaging";
import type { AuthenticationCheck, SpamCheck } from "@mailstop/db";
import { checkAuthentication } from "./checks/authentication";
import { checkHtmlSupport } from "./checks/html-support";
import { checkSpam } from "./checks/spam";
import { type StoredParts, buildContent, headerBlock, storable, unparsedContent } from "./content";
import type { ParserDeps } from "./deps";
import { HeaderLimiter, readHeaderBlock } from "./header-limiter";
import { PARSE_LIMITS, type ParseLimits } from "./parse-limits";
import { type ReadMessage, readMessage } from "./read-message";
import { StoreBatcher } from "./store-batcher";

/**
 * The capture inbox of a recipient, created on first use with `labels.recipient` and audited
 * then, in the same transaction, as `inbox.created` by the system (`capture-relay`). The entry
 * names the recipient only by the SHA-256 of its lower-cased address, as an erasure's entry
 * does: the address, and the tag made of it, are personal data an erasure removes with the
 * inbox, and the trail outlives both.
 */
async function captureInbox(deps: ParserDeps, delivery: Delivery, recipient: string): Promise<string> {
  const tag = captureTag(recipient);
  if (tag === null) throw new PermanentJobError(`capture recipient ${recipient} cannot make a tag`);
  const definition = {
    projectId: delivery.project_id,
    domainId: null,
    tag,
    address: inboxAddress({ projectKey: delivery.project_key, tag, domain: null, sharedDomain: deps.config.sharedDomain }),
    labels: { recipient },
    retentionSeconds: RETENTION_SECONDS.default,
  };
  const { inbox } = await audited(
    deps.db,
    (trx) => ensureInbox(trx, newId("inbox"), definition),
    ({ inbox, created }) =>
      created
        ? {
            projectId: delivery.project_id,
            source: systemSource("capture-relay"),
            action: "inbox.created",
            target: { type: "inbox", id: inbox.id },
            details: { created_by: "capture_relay", recipient_sha256: sha256(recipient.toLowerCase()).toString("hex") },
          }
        : null,
  );
  return inbox.id;
}

/**
 * The raw source: on a job's first attempt, the copy the edge put in the job; else (a larger
 * source, or a retry) the stored object. A retry reads the store because its rows may have
 * been stored, erased and reaped since the first attempt, and an erased message must not come
 * back: null when the source is gone, and the delivery stores nothing. So does a job whose
 * transaction the edge refused after its put failed (it removes that raw source).
 */
async function rawSource(deps: ParserDeps, job: ParseMessageJob, delivery: Delivery, attempt: number): Promise<Readable | null> {
  if (job.raw !== undefined && attempt === 1) return Readable.from([Buffer.from(job.raw, "base64")]);
  return deps.blobs.get(delivery.raw_key);
}

/** The parser's limits for this deployment: a decoded part is never larger than a message may be. */
function parseLimits(deps: ParserDeps): ParseLimits {
  return { ...PARSE_LIMITS, maxPartBytes: deps.config.smtp.maxMessageBytes };
}

/**
 * A failure of the engines (object store, database, network) rather than of the message:
 * retried on every attempt, never turned into a raw-only message. MailstopErrors are the
 * adapters' (storage_unavailable); PostgreSQL's connection, rollback, resource, state,
 * operator-intervention, system and internal classes (08, 40, 53, 55, 57, 58, XX) are the
 * database's; so is a Node system error (ECONNREFUSED…).
 */
function isEngineFailure(error: unknown): boolean {
  if (error instanceof MailstopError || error instanceof PermanentJobError || isDatabaseUnreachable(error)) return true;
  return /^(08|40|53|55|57|58|XX)/.test(sqlState(error) ?? "");
}

/** PostgreSQL refused the values themselves (data exception, program limit): the same content fails every time. */
function isRefusedContent(error: unknown): boolean {
  return /^(22|54)/.test(sqlState(error) ?? "");
}

/** Where a parse put its text, html and header block: the row up to INLINE_PART_MAX_BYTES, else the transaction's prefix. */
async function storeParts(deps: ParserDeps, delivery: Delivery, transactionId: string, bodies: { text: string | null; html: string | null; headers: string | null }): Promise<StoredParts> {
  // Sized as stored: NUL and lone surrogates become U+FFFD (see storable).
  const text = storable(bodies.text);
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
  const [htmlBody, headerBlockBody] = await Promise.all([inRow("html", storable(bodies.html)), inRow("headers", storable(bodies.headers))]);
  return { parts, htmlBody, headerBlock: headerBlockBody };
}

/**
 * The content of a source that could not be parsed: its top-level header block read again on
 * its own (bounded, see readHeaderBlock) so its subject, addresses and ids stay visible, with
 * `unparseable` and the failure recorded. Bare when even the header block cannot be read.
 */
async function unreadableContent(deps: ParserDeps, job: ParseMessageJob, delivery: Delivery, attempt: number, failure: unknown): Promise<ParsedContent> {
  const reason = failure instanceof Error ? failure.message : String(failure);
  const limits = parseLimits(deps);
  try {
    const raw = await rawSource(deps, job, delivery, attempt);
    if (raw === null) return unparsedContent(reason);
    const limiter = new HeaderLimiter(limits);
    const block = await readHeaderBlock(raw, limiter);
    // A header block alone has no parts worth keeping: a root "attachment" is drained unstored.
    const drain = async (_position: number, content: Readable) => {
      content.resume();
      return 0;
    };
    const read = await readMessage(Readable.from([block]), drain, limits);
    for (const warning of limiter.warnings) read.warnings.add(warning);
    const stored = await storeParts(deps, delivery, job.transaction_id, { text: null, html: null, headers: headerBlock(read) });
    return unparsedContent(reason, { read, stored });
  } catch (error) {
    if (isEngineFailure(error)) throw error;
    deps.logger.warn({ err: error, transaction_id: job.transaction_id }, "the header block could not be read either; stored bare");
    return unparsedContent(reason);
  }
}

/**
 * Reads the raw source once, within the parser's limits (parseLimits; a limit reached keeps
 * what was read and names the limit in `parse_warnings`). The text part lives in the row
 * (`text_body`), and so do the html part and the header block up to INLINE_PART_MAX_BYTES: a
 * small message reaches the database without touching the object store. Attachments and
 * larger parts are stored under the transaction's prefix (the same keys on every retry). A
 * source that cannot be read becomes a raw-only message with its top-level headers and its
 * read failure recorded; anything failing past the read (an engine, or a bug) fails the
 * attempt, see parseOrFallBack. Null when the raw source is gone.
 */
async function parseDelivery(deps: ParserDeps, job: ParseMessageJob, delivery: Delivery, attempt: number): Promise<ParsedContent | null> {
  const transactionId = job.transaction_id;
  const raw = await rawSource(deps, job, delivery, attempt);
  if (raw === null) return null;
  let read: ReadMessage;
  try {
    read = await readMessage(
      raw,
      async (position, content, contentType) => {
        const { size } = await deps.blobs.put(blobKeys.attachment(delivery.project_id, transactionId, position), content, { contentType });
        return size;
      },
      parseLimits(deps),
    );
  } catch (error) {
    if (isEngineFailure(error)) throw error;
    deps.logger.warn({ err: error, transaction_id: transactionId }, "message could not be parsed; stored raw only");
    return unreadableContent(deps, job, delivery, attempt, error);
  }
  const stored = await storeParts(deps, delivery, transactionId, { text: read.text, html: read.html, headers: headerBlock(read) });
  const content = buildContent(
    read,
    stored,
    read.attachments.map((attachment) => ({ ...attachment, blobKey: blobKeys.attachment(delivery.project_id, transactionId, attachment.position) })),
  );
  const html = deps.config.checks.includes("html") ? checkHtmlSupport(read.html, deps.config.htmlClients) : null;
  return { ...content, checks: { authentication: null, html } };
}

/**
 * The transaction's raw source in one buffer for the checks that read it (authentication, spam),
 * read once for both rather than once each; null when neither is on. Rejects as the read does:
 * each check turns that into its own outcome.
 */
function checksSource(deps: ParserDeps, job: ParseMessageJob, attempt: number): Promise<Buffer | null> | null {
  if (!deps.config.checks.includes("authentication") && deps.config.spamd === null) return null;
  return rawSource(deps, job, job.deliveries[0]!, attempt).then((raw) => (raw === null ? null : buffer(raw)));
}

/**
 * The transaction's authentication (DKIM, SPF, DMARC, ARC), from its raw source and the
 * connection the edge recorded, checked once for all its deliveries while they are parsed.
 * Never rejects (a DNS that does not answer in time is temperror): null when MAILSTOP_CHECKS
 * leaves it out, or when the raw source cannot be read, and the parse finds out why.
 */
async function authenticateTransaction(deps: ParserDeps, job: ParseMessageJob, source: Promise<Buffer | null> | null): Promise<AuthenticationCheck | null> {
  if (!deps.config.checks.includes("authentication") || source === null) return null;
  const raw = await source.catch(() => null);
  if (raw === null) return null;
  const connection = { address: job.client_address ?? null, helo: job.client_helo ?? null, mailFrom: job.envelope_from };
  return checkAuthentication(raw, connection, deps.config.dnsServers);
}

/**
 * The transaction's spam score from spamd at MAILSTOP_SPAMD, asked once for all its deliveries
 * while they are parsed, beside the authentication. Null when spamd is not configured (the
 * view says `not_configured`) or the raw source is gone (nothing is stored); never rejects:
 * spamd down, slow or answering garbage, or a source that cannot be read for it, is `error`.
 */
async function scoreTransaction(deps: ParserDeps, job: ParseMessageJob, source: Promise<Buffer | null> | null): Promise<SpamCheck | null> {
  const spamd = deps.config.spamd;
  if (spamd === null || source === null) return null;
  const failed = (error: unknown) => deps.logger.warn({ err: error, transaction_id: job.transaction_id }, "spamd could not score the message; its spam check is error");
  try {
    const raw = await source;
    return raw === null ? null : await checkSpam(raw, spamd, failed);
  } catch (error) {
    failed(error);
    return { status: "error", score: null, threshold: null, rules: [] };
  }
}

/**
 * parseDelivery, and on the job's last attempt a raw-only message when it fails past the read
 * with anything but an engine's failure: a bug fails the attempts before (seen, and retried in
 * case it passes) but does not lose an accepted message, as in storeOrFallBack.
 */
async function parseOrFallBack(deps: ParserDeps, job: ParseMessageJob, delivery: Delivery, attempt: number): Promise<ParsedContent | null> {
  try {
    return await parseDelivery(deps, job, delivery, attempt);
  } catch (error) {
    if (attempt < PARSE_ATTEMPTS || isEngineFailure(error)) throw error;
    deps.logger.error({ err: error, transaction_id: job.transaction_id, attempt }, "message could not be parsed on its last attempt; storing it raw only");
    return unreadableContent(deps, job, delivery, attempt, error);
  }
}

/**
 * Announces arrivals after the rows are committed. A `sim.delay` copy has no stream cursor
 * yet: the publish-arrival job reveals and announces it when its delay is over. Copies that
 * raised webhook events wake the relay, which queues their deliveries (or sleeps until a
 * delayed copy's are due).
 */
async function announce(deps: ParserDeps, copies: readonly StoredCopy[]): Promise<void> {
  if (copies.some((copy) => copy.raisedWebhookEvents)) deps.webhookRelay?.kick();
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

/** The parse-message job's attempts (JOB_OPTIONS): its last one stores what it can rather than fail. */
export const PARSE_ATTEMPTS = JOB_OPTIONS["parse-message"].attempts;

/**
 * Stores a delivery's content; when the database refuses it (the same values fail every time),
 * or anything but an engine fails on the job's last attempt, stores it raw-only instead: the
 * top-level headers read again with `unparseable`, then bare if those are refused too. An
 * engine failure always fails the attempt, to be retried (and requeued by the reconciler).
 */
async function storeOrFallBack(
  deps: ParserDeps,
  job: ParseMessageJob,
  delivery: Delivery,
  attempt: number,
  content: ParsedContent,
  store: (content: ParsedContent) => Promise<StoredCopy[]>,
): Promise<StoredCopy[]> {
  const fallsBack = (error: unknown) => isRefusedContent(error) || (attempt >= PARSE_ATTEMPTS && !isEngineFailure(error));
  try {
    return await store(content);
  } catch (error) {
    if (!fallsBack(error)) throw error;
    deps.logger.warn({ err: error, transaction_id: job.transaction_id, attempt }, "message could not be stored as parsed; storing it raw only");
    try {
      return await store(await unreadableContent(deps, job, delivery, attempt, error));
    } catch (again) {
      if (!fallsBack(again)) throw again;
      return store(unparsedContent(error instanceof Error ? error.message : String(error)));
    }
  }
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
    // Both run while the deliveries are parsed, side by side; neither ever rejects.
    const source = checksSource(deps, job, attempt);
    const authentication = authenticateTransaction(deps, job, source);
    const spam = scoreTransaction(deps, job, source);
    for (const [index, delivery] of job.deliveries.entries()) {
      // Parsed first: a transaction whose raw source is gone must not leave capture inboxes behind.
      const content = await parseOrFallBack(deps, job, delivery, attempt);
      if (content === null) {
        // Gone (erased and reaped before a retry, or refused by the edge): nothing to store, and
        // its ledger row must not send the reconciler back here forever.
        if (index === job.deliveries.length - 1) await markTransactionsDone(deps.db, [job.transaction_id]);
        continue;
      }
      const recipients = await Promise.all(
        delivery.recipients.map(async (recipient) => ({ ...recipient, inboxId: recipient.inbox_id ?? (await captureInbox(deps, delivery, recipient.address)) })),
      );
      // Awaited only now: they ran while the source was parsed. Every content stored, a raw-only one too, carries them.
      const [authenticated, scored] = await Promise.all([authentication, spam]);
      const input = (parsed: ParsedContent): StoreMessageInput => ({
        projectId: delivery.project_id,
        kind: job.kind,
        rawKey: delivery.raw_key,
        size: job.size,
        envelopeFrom: job.envelope_from,
        receivedAt,
        metric: job.kind === "captured" ? METRICS.captured : METRICS.received,
        periodStart: periodStart(receivedAt),
        content: { ...parsed, checks: { authentication: authenticated, html: parsed.checks?.html ?? null, spam: scored } },
        copies: recipients.map((recipient) => ({
          inboxId: recipient.inboxId,
          newMessageId: newId("message"),
          newAttachmentIds: parsed.attachments.map(() => newId("attachment")),
          envelopeTo: recipient.address,
          visibleAt: recipient.sim === "delay" ? new Date(receivedAt.getTime() + deps.config.smtp.simDelayMs) : receivedAt,
          complaint: recipient.sim === "complaint",
          labels: (job.kind === "captured" ? { recipient: recipient.address } : {}) satisfies Labels as Labels,
        })),
        // The last delivery's rows close the transaction's ledger row; a retry redoes the earlier ones idempotently.
        completesTransaction: index === job.deliveries.length - 1 ? job.transaction_id : null,
      });
      const copies = await storeOrFallBack(deps, job, delivery, attempt, content, (stored) => batcher.store(input(stored)));
      for (const copy of copies.filter((c) => c.inserted)) {
        const recipient = recipients.find((r) => r.inboxId === copy.inboxId);
        if (recipient?.sim === "complaint") deps.logger.info({ event: "message.complaint", message_id: copy.messageId, inbox_id: copy.inboxId }, "complaint recorded");
      }
      await announce(deps, copies);
      // Visible now (a sim.delay copy becomes visible later, by its own job: not counted).
      // Copies a retried job had stored already were counted then.
      for (const copy of copies) if (copy.inserted && copy.streamSeq !== null) deps.metrics?.messageVisible((Date.now() - receivedAt.getTime()) / 1000);
    }
  };
}
