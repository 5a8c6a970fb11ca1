import { MailstopError } from "@mailstop/core";
import { deleteInbox } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";

/** DELETE /v1/inboxes/{id}: hard delete of the inbox and its messages. */
export const deleteInboxRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteInbox", async ({ auth, params }) => {
    const inbox = await requireInbox(db, auth.project.id, params.id);
    const counts = await deleteInbox(db, auth.project.id, inbox.id);
    // Lost a race with a concurrent delete: the inbox is gone, as for any unknown inbox.
    if (counts.inboxesDeleted === 0) throw new MailstopError("inbox_not_found", `No inbox ${params.id} in this project.`);
    return { status: 200, body: { id: inbox.id, deleted: true, messages_deleted: counts.messagesDeleted } };
  });
