import { type ApiDeps, publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";
import { toInboxView } from "../../inboxes/inbox.view";

/** GET /v1/inboxes/{id}: by id or address. */
export const getInboxRoute = ({ db }: ApiDeps) =>
  publicRoute("getInbox", async ({ auth, params }) => ({ status: 200, body: toInboxView(await requireInbox(db, auth.project.id, params.id)) }));
