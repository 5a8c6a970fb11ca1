import { ACCEPT_WRITE_DEADLINE_MS, newTransactionId, withinDeadline } from "@mailstop/core";
import { blobKeys } from "@mailstop/blob-store";
import { markTransactionsDone } from "@mailstop/db";
import { type Delivery, INLINE_RAW_MAX_BYTES } from "@mailstop/messaging";
import type { AcceptedRecipient, SmtpEdgeDeps } from "./deps";
import { assertRoomFor, isOutOfSpace } from "./disk-space";
import { REPLY } from "./smtp-reply";

/** How long the edge waits for each durable write before answering 451 (see ACCEPT_WRITE_DEADLINE_MS). */
export const STORE_TIMEOUT_MS = ACCEPT_WRITE_DEADLINE_MS;

/** Resolves when every put has settled, rejecting if any failed or the deadline passed first. */
async function storeAll(puts: Promise<unknown>[], timeoutMs: number): Promise<void> {
  // allSettled, not all: the cleanup after a failure must not race a put still in flight.
  const outcome = await withinDeadline(Promise.allSettled(puts), timeoutMs, "the object store");
  const failed = outcome.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** What makes a recipient's copy: its inbox (receiving), or its address in its project (capture). */
export function copyKeyOf(recipient: AcceptedRecipient): string {
  return recipient.inboxId ?? `${recipient.projectId}\n${recipient.address.toLowerCase()}`;
}

/** One copy per inbox (receiving) or per recipient address (capture), grouped by project. */
function deliveriesOf(transactionId: string, recipients: readonly AcceptedRecipient[]): Delivery[] {
  const byProject = new Map<string, Delivery>();
  const seen = new Set<string>();
  for (const recipient of recipients) {
    const copyKey = copyKeyOf(recipient);
    if (seen.has(copyKey)) continue;
    seen.add(copyKey);
    let delivery = byProject.get(recipient.projectId);
    if (!delivery) {
      delivery = { project_id: recipient.projectId, project_key: recipient.projectKey, raw_key: blobKeys.raw(recipient.projectId, transactionId), recipients: [] };
      byProject.set(recipient.projectId, delivery);
    }
    delivery.recipients.push({ address: recipient.address, inbox_id: recipient.inboxId, sim: recipient.sim });
  }
  return [...byProject.values()];
}

/**
 * Makes an SMTP transaction durable before its `250` (refused with `452 4.3.1` before anything
 * is written when the embedded monolith's disk is nearly full, see disk-space.ts):
 * - its raw bytes go to the object store (one copy per project), and at the same time
 * - a row of the accept ledger records the transaction in the database: once both are done the
 *   `250` is safe, since from then on the reconciler finds the transaction even if the parse
 *   job below is lost (Redis restarted or flushed, this process killed);
 * - then its single parse job goes to the queue, the fast path to the parser, carrying the raw
 *   bytes too when they are small (the parser then reads nothing back).
 * The two writes run together: the ledger row may exist before its raw source, which only the
 * reconciler reads, after a grace period. If either fails or passes its deadline, the sender
 * gets `451 4.3.0` (`452 4.3.1` for a full disk) and retries; the refused transaction is
 * forgotten in the background (its raw copies deleted, its row marked done; a parse of it
 * finds no raw source and stores nothing).
 * A failed enqueue is logged and still answered `250`: the reconciler repairs it.
 * `id` is the id the transaction's reservations are filed under, when it reserved any: its
 * ledger row keeps them counted until the parser has stored it.
 */
export async function acceptTransaction(
  deps: SmtpEdgeDeps,
  transaction: {
    kind: "received" | "captured";
    raw: Buffer;
    envelopeFrom: string | null;
    /** The connection it came over: the client's IP address and HELO name, for the parser's authentication checks. */
    client?: { address: string | null; helo: string | null } | undefined;
    recipients: readonly AcceptedRecipient[];
    id?: string | undefined;
  },
): Promise<string> {
  assertRoomFor(deps.disk, transaction.raw.length);
  const transactionId = transaction.id ?? newTransactionId();
  const acceptedAt = new Date();
  const deliveries = deliveriesOf(transactionId, transaction.recipients);
  const clientAddress = transaction.client?.address || null;
  const clientHelo = transaction.client?.helo || null;
  const record = { id: transactionId, kind: transaction.kind, size: transaction.raw.length, envelopeFrom: transaction.envelopeFrom, clientAddress, clientHelo, acceptedAt, deliveries };
  const [stored, recorded] = await Promise.allSettled([
    storeAll(
      deliveries.map((delivery) => deps.blobs.put(delivery.raw_key, transaction.raw, { contentType: "message/rfc822" })),
      STORE_TIMEOUT_MS,
    ),
    withinDeadline(deps.ledger.record(record), STORE_TIMEOUT_MS, "the accept ledger"),
  ]);
  if (stored.status === "rejected" || recorded.status === "rejected") {
    const failure: unknown = stored.status === "rejected" ? stored.reason : (recorded as PromiseRejectedResult).reason;
    const reply = isOutOfSpace(failure) ? REPLY.insufficientStorage() : REPLY.temporaryFailure();
    deps.logger.warn({ err: failure, transaction_id: transactionId }, `transaction not accepted; replied ${reply.responseCode}`);
    // Not awaited: the engine that failed may hang on these too, and the sender must hear 451
    // now. What they miss is harmless: a raw source no row knows is swept after a day; an
    // open row whose raw source is gone is closed by its parse.
    void deps.blobs.delete(deliveries.map((delivery) => delivery.raw_key)).catch((error: unknown) => {
      deps.logger.warn({ err: error, transaction_id: transactionId }, "raw source of a refused transaction not removed");
    });
    void markTransactionsDone(deps.db, [transactionId]).catch(() => undefined);
    throw reply;
  }
  try {
    await deps.queue.enqueue(
      "parse-message",
      {
        transaction_id: transactionId,
        kind: transaction.kind,
        size: transaction.raw.length,
        received_at: acceptedAt.toISOString(),
        envelope_from: transaction.envelopeFrom,
        ...(clientAddress ? { client_address: clientAddress } : {}),
        ...(clientHelo ? { client_helo: clientHelo } : {}),
        deliveries,
        ...(transaction.raw.length <= INLINE_RAW_MAX_BYTES ? { raw: transaction.raw.toString("base64") } : {}),
      },
      { jobId: transactionId },
    );
  } catch (error) {
    deps.logger.warn({ err: error, transaction_id: transactionId }, "parse job not queued; the reconciler will queue it from the accept ledger");
  }
  deps.logger.info({ transaction_id: transactionId, kind: transaction.kind, size: transaction.raw.length, copies: transaction.recipients.length }, "transaction accepted");
  return transactionId;
}
