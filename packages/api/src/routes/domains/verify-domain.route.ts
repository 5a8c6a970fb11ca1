import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { DnsVerifier } from "../../domains/dns-verification";
import { domainNotFound, recordVerification, requireDomain } from "../../domains/domain.service";
import { toDomainView } from "../../domains/domain.view";

/**
 * POST /v1/domains/{id}/verify: looks the records up now and answers 200 with the domain,
 * verified or still pending with `last_check.missing`. A verified domain is returned as it is,
 * without a lookup: later DNS changes never take its inboxes away.
 */
export const verifyDomainRoute = ({ db, config, logger, webhooks }: ApiDeps) => {
  const verifier = new DnsVerifier(config.dnsServers, config.mxHost);
  return publicRoute("verifyDomain", async ({ auth, params, requestId }) => {
    const domain = await requireDomain(db, auth.project.id, params.id);
    if (domain.status === "verified") return { status: 200, body: toDomainView(domain, config.mxHost) };
    const check = await verifier.check(domain.domain, domain.ownershipToken);
    const recorded = await recordVerification({ db, logger, mxHost: config.mxHost, queue: webhooks.queue }, domain, check, keySource({ auth, requestId }));
    // Deleted while its records were being looked up.
    if (recorded === null) throw domainNotFound(params.id);
    return { status: 200, body: toDomainView(recorded, config.mxHost) };
  });
};
