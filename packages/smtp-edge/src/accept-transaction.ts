import { newTransactionId } from "@mailstop/core";
import { blobKeys } from "@mailstop/blob-store";
import { type Delivery, INLINE_RAW_MAX_BYTES } from "@mailstop/messaging";
import type { AcceptedRecipient, SmtpEdgeDeps } from "./deps";
import { REPLY } from "./smtp-reply";

/** How long the edge waits for the object store before answering 451 (a hung store must not hold DATA open). */
export const STORE_TIMEOUT_MS = 10_000;

/** Resolves when every put has settled, rejecting if any failed or the deadline passed first. */
async function storeAll(puts: Promise<unknown>[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutMs);
  });
  // allSettled, not all: the cleanup after a failure must not race a put still in flight.
  const outcome = await Promise.race([Promise.allSettled(puts), deadline]).finally(() => clearTimeout(timer));
  if (outcome === "late") throw new Error(`object store did not answer within ${timeoutMs} ms`);
  const failed = outcome.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** One copy per inbox (receiving) or per recipient address (capture), grouped by project. */
function deliveriesOf(transactionId: string, recipients: readonly AcceptedRecipient[]): Delivery[] {
  const byProject = new Map<string, Delivery>();
  const seen = new Set<string>();
  for (const recipient of recipients) {
    const copyKey = recipient.inboxId ?? `${recipient.projectId}\n${recipient.address.toLowerCase()}`;
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
 * Makes an SMTP transaction durable before its `250`: the raw bytes in the object store (one
 * copy per project), then its single parse job in the queue, carrying the raw bytes too when
 * they are small (the parser then reads nothing back). If a put fails, the stored raw copies
 * are removed and the sender gets `451 4.3.0`: its retry is the recovery. If the enqueue
 * fails, the sender gets the same 451 but the raw copies stay: an enqueue that timed out may
 * still land, and its job must find them (see docs/decisions.md, "A 451 after the enqueue").
 */
export async function acceptTransaction(
  deps: SmtpEdgeDeps,
  transaction: { kind: "received" | "captured"; raw: Buffer; envelopeFrom: string | null; recipients: readonly AcceptedRecipient[] },
): Promise<string> {
  const transactionId = newTransactionId();
  const deliveries = deliveriesOf(transactionId, transaction.recipients);
  const refuse = (error: unknown): never => {
    deps.logger.warn({ err: error, transaction_id: transactionId }, "transaction not accepted; replied 451");
    throw REPLY.temporaryFailure();
  };
  try {
    await storeAll(
      deliveries.map((delivery) => deps.blobs.put(delivery.raw_key, transaction.raw, { contentType: "message/rfc822" })),
      STORE_TIMEOUT_MS,
    );
  } catch (error) {
    // Best effort: a raw left behind here (store unreachable, or a put that lands after the
    // deadline) has no row and no job, and is harmless.
    await deps.blobs.delete(deliveries.map((delivery) => delivery.raw_key)).catch((error: unknown) => {
      deps.logger.warn({ err: error, transaction_id: transactionId }, "raw source of a refused transaction not removed");
    });
    refuse(error);
  }
  try {
    await deps.queue.enqueue(
      "parse-message",
      {
        transaction_id: transactionId,
        kind: transaction.kind,
        size: transaction.raw.length,
        received_at: new Date().toISOString(),
        envelope_from: transaction.envelopeFrom,
        deliveries,
        ...(transaction.raw.length <= INLINE_RAW_MAX_BYTES ? { raw: transaction.raw.toString("base64") } : {}),
      },
      { jobId: transactionId },
    );
  } catch (error) {
    refuse(error);
  }
  deps.logger.info({ transaction_id: transactionId, kind: transaction.kind, size: transaction.raw.length, copies: transaction.recipients.length }, "transaction accepted");
  return transactionId;
}
