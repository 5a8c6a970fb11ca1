import { listInboxes } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { idListPage } from "../../paging/id-page";
import { inboxFilterFrom } from "../../inboxes/inbox-filter";
import { toInboxView } from "../../inboxes/inbox.view";

/** GET /v1/inboxes: newest first, keyset-paged, filtered by tag prefix and label. */
export const listInboxesRoute = ({ db }: ApiDeps) =>
  publicRoute("listInboxes", async ({ auth, query }) => {
    const filter = inboxFilterFrom(query, "query");
    return { status: 200, body: await idListPage(query, "inbox", (page) => listInboxes(db, auth.project.id, filter, page), toInboxView) };
  });
