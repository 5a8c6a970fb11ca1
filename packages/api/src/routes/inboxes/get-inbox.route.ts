import { type ApiDeps, publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";
import { toInboxView } from "../../inboxes/inbox.view";

/** GET /v1/inboxes/{id}: by id or address. */
export const getInboxRoute = ({ db, config }: ApiDeps) =>
  publicRoute("getInbox", async ({ auth, params }) => ({
    status: 200,
    // A recipient the application mailed is pointed to its capture inbox (details.capture_inbox).
    body: toInboxView(await requireInbox(db, auth.project.id, params.id, { projectKey: auth.project.key, sharedDomain: config.sharedDomain })),
  }));
