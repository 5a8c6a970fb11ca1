import { isId } from "@mailstop/core";
import { listDomains } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { toDomainView } from "../../domains/domain.view";
import { decodeCursor, pageOf } from "../../inboxes/cursor";

/** GET /v1/domains: newest first, keyset-paged. */
export const listDomainsRoute = ({ db, config }: ApiDeps) =>
  publicRoute("listDomains", async ({ auth, query }) => {
    const limit = query.limit ?? 50;
    const rows = await listDomains(db, auth.project.id, { beforeId: decodeCursor(query.cursor, (position) => isId("domain", position)), limit: limit + 1 });
    const page = pageOf(rows, limit, (domain) => domain.id);
    return { status: 200, body: { data: page.items.map((domain) => toDomainView(domain, config.mxHost)), limit, next_cursor: page.nextCursor } };
  });
