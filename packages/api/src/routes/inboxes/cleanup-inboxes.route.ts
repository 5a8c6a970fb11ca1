import { deleteMatchingInboxes } from "@mailstop/db";
import { invalidRequest } from "@mailstop/openapi";
import { auditedByKey } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { inboxFilterFrom } from "../../inboxes/inbox-filter";

/** At most 200 inboxes per call; clients repeat until `inboxes_deleted` is 0 (docs/inboxes-and-addresses.md "Deleting inboxes"). */
export const CLEANUP_BATCH = 200;

/**
 * POST /v1/inboxes/cleanup: deletes matching inboxes and their messages; a selector is required.
 * A batch that deleted something is audited as `inboxes.cleaned_up` (selector, counts, inbox ids).
 */
export const cleanupInboxesRoute = ({ db }: ApiDeps) =>
  publicRoute("cleanupInboxes", async ({ auth, body, requestId }) => {
    const filter = inboxFilterFrom(body, "body");
    if (filter.tagPrefix === undefined && filter.label === undefined) {
      invalidRequest([{ in: "body", path: "/", message: "needs tag_prefix, or label_key with label_value" }], "Cleanup needs at least one selector.");
    }
    const counts = await auditedByKey(
      db,
      { auth, requestId },
      (trx) => deleteMatchingInboxes(trx, auth.project.id, filter, CLEANUP_BATCH),
      (deleted) =>
        deleted.inboxesDeleted === 0
          ? null
          : {
              action: "inboxes.cleaned_up",
              target: { type: "project", id: auth.project.id },
              details: {
                selector: { tag_prefix: filter.tagPrefix ?? null, label_key: filter.label?.key ?? null, label_value: filter.label?.value ?? null },
                inboxes_deleted: deleted.inboxesDeleted,
                messages_deleted: deleted.messagesDeleted,
                inbox_ids: deleted.inboxIds,
              },
            },
    );
    return { status: 200, body: { inboxes_deleted: counts.inboxesDeleted, messages_deleted: counts.messagesDeleted } };
  });
