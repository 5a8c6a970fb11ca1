import { MailstopError } from "@mailstop/core";
import { deleteInbox } from "@mailstop/db";
import { auditedByKey } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";

/** DELETE /v1/inboxes/{id}: hard delete of the inbox and its messages, audited as `inbox.deleted`. */
export const deleteInboxRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteInbox", async ({ auth, params, requestId }) => {
    const inbox = await requireInbox(db, auth.project.id, params.id);
    const counts = await auditedByKey(
      db,
      { auth, requestId },
      (trx) => deleteInbox(trx, auth.project.id, inbox.id),
      (deleted) =>
        deleted.inboxesDeleted === 0
          ? null
          : { action: "inbox.deleted", target: { type: "inbox", id: inbox.id }, details: { address: inbox.address, messages_deleted: deleted.messagesDeleted } },
    );
    // Lost a race with a concurrent delete: the inbox is gone, as for any unknown inbox.
    if (counts.inboxesDeleted === 0) throw new MailstopError("inbox_not_found", `No inbox ${params.id} in this project.`);
    return { status: 200, body: { id: inbox.id, deleted: true, messages_deleted: counts.messagesDeleted } };
  });
