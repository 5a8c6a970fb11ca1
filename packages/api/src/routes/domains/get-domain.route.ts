import { type ApiDeps, publicRoute } from "../../deps";
import { requireDomain } from "../../domains/domain.service";
import { toDomainView } from "../../domains/domain.view";

/** GET /v1/domains/{id} */
export const getDomainRoute = ({ db, config }: ApiDeps) =>
  publicRoute("getDomain", async ({ auth, params }) => ({ status: 200, body: toDomainView(await requireDomain(db, auth.project.id, params.id), config.mxHost) }));
