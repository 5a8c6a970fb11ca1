import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { claimDomain } from "../../domains/domain.service";
import { toDomainView } from "../../domains/domain.view";

/** POST /v1/domains: claims a receiving domain, pending until its DNS records are verified. */
export const createDomainRoute = ({ db, config }: ApiDeps) =>
  publicRoute("createDomain", async ({ auth, body, requestId }) => {
    const domain = await claimDomain(db, auth.project.id, body.domain, config, keySource({ auth, requestId }));
    return { status: 201, body: toDomainView(domain, config.mxHost) };
  });
