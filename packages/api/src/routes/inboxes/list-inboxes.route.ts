import { isId } from "@mailstop/core";
import { listInboxes } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { decodeCursor, pageOf } from "../../inboxes/cursor";
import { inboxFilterFrom } from "../../inboxes/inbox-filter";
import { toInboxView } from "../../inboxes/inbox.view";

/** GET /v1/inboxes: newest first, keyset-paged, filtered by tag prefix and label. */
export const listInboxesRoute = ({ db }: ApiDeps) =>
  publicRoute("listInboxes", async ({ auth, query }) => {
    const filter = inboxFilterFrom(query, "query");
    const limit = query.limit ?? 50;
    const rows = await listInboxes(db, auth.project.id, filter, { beforeId: decodeCursor(query.cursor, (position) => isId("inbox", position)), limit: limit + 1 });
    const page = pageOf(rows, limit, (inbox) => inbox.id);
    return { status: 200, body: { data: page.items.map(toInboxView), limit, next_cursor: page.nextCursor } };
  });
