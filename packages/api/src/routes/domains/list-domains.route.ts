import { listDomains } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { toDomainView } from "../../domains/domain.view";
import { idListPage } from "../../paging/id-page";

/** GET /v1/domains: newest first, keyset-paged. */
export const listDomainsRoute = ({ db, config }: ApiDeps) =>
  publicRoute("listDomains", async ({ auth, query }) => {
    const body = await idListPage(query, "domain", (page) => listDomains(db, auth.project.id, page), (domain) => toDomainView(domain, config.mxHost));
    return { status: 200, body };
  });
