import { sha256 } from "@mailstop/core";
import { eraseAddress } from "@mailstop/db";
import { auditedByKey } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { dispatchCommitted } from "../../webhooks/relay";

/**
 * POST /v1/erasure: erases the address from the project (the document validates it as an
 * email address): every message from or to it, their webhook deliveries' bodies, its capture
 * inboxes and its ledger entries (eraseAddress), audited as `messages.erased` in the same
 * transaction. The audit row keeps the count and a SHA-256 of the lower-cased address, never
 * the address: an erasure must not store again the personal data it removes, while whoever
 * holds the address can still find its erasure by hashing it. The erased messages' pending
 * webhook deliveries are dispatched once it has committed: their next attempt drops them.
 */
export const eraseMessagesRoute = ({ db, logger, webhooks }: ApiDeps) =>
  publicRoute("eraseMessages", async ({ auth, body, requestId }) => {
    const address = body.address.toLowerCase();
    const erasedAt = new Date();
    const erased = await auditedByKey(
      db,
      { auth, requestId },
      (trx) => eraseAddress(trx, auth.project.id, address, erasedAt),
      ({ messagesErased, captureInboxesDeleted }) => ({
        action: "messages.erased",
        target: { type: "project", id: auth.project.id },
        details: { address_sha256: sha256(address).toString("hex"), messages_erased: messagesErased, capture_inboxes_deleted: captureInboxesDeleted },
      }),
    );
    await dispatchCommitted({ queue: webhooks.queue, logger }, erased.dueDeliveries);
    return { status: 200, body: { address, messages_erased: erased.messagesErased, erased_at: erasedAt.toISOString() } };
  });
