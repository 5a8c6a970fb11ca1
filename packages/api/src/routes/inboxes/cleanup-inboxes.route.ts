import { deleteMatchingInboxes } from "@mailstop/db";
import { invalidRequest } from "@mailstop/openapi";
import { type ApiDeps, publicRoute } from "../../deps";
import { inboxFilterFrom } from "../../inboxes/inbox-filter";

/** At most 200 inboxes per call; clients repeat until `inboxes_deleted` is 0 (docs/inboxes-and-addresses.md "Deleting inboxes"). */
export const CLEANUP_BATCH = 200;

/** POST /v1/inboxes/cleanup: deletes matching inboxes and their messages; a selector is required. */
export const cleanupInboxesRoute = ({ db }: ApiDeps) =>
  publicRoute("cleanupInboxes", async ({ auth, body }) => {
    const filter = inboxFilterFrom(body, "body");
    if (filter.tagPrefix === undefined && filter.label === undefined) {
      invalidRequest([{ in: "body", path: "/", message: "needs tag_prefix, or label_key with label_value" }], "Cleanup needs at least one selector.");
    }
    const counts = await deleteMatchingInboxes(db, auth.project.id, filter, CLEANUP_BATCH);
    return { status: 200, body: { inboxes_deleted: counts.inboxesDeleted, messages_deleted: counts.messagesDeleted } };
  });
