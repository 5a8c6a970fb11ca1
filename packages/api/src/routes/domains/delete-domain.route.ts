import { MailstopError } from "@mailstop/core";
import { deleteDomainIfUnused } from "@mailstop/db";
import { auditedByKey } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { domainNotFound, requireDomain } from "../../domains/domain.service";

/** DELETE /v1/domains/{id}: releases the claim (audited as `domain.deleted`); refused while inboxes live on the domain. */
export const deleteDomainRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteDomain", async ({ auth, params, requestId }) => {
    const domain = await requireDomain(db, auth.project.id, params.id);
    const entry = { action: "domain.deleted", target: { type: "domain", id: domain.id }, details: { domain: domain.domain } } as const;
    const result = await auditedByKey(db, { auth, requestId }, (trx) => deleteDomainIfUnused(trx, auth.project.id, domain.id), (outcome) => (outcome.found && outcome.deleted ? entry : null));
    // Lost a race with a concurrent delete: gone, as any unknown domain.
    if (!result.found) throw domainNotFound(params.id);
    if (!result.deleted) {
      throw new MailstopError("conflict", `${result.inboxCount} inbox(es) still live on ${domain.domain}; delete them first.`, {
        details: { domain_id: domain.id, inbox_count: result.inboxCount },
      });
    }
    return { status: 200, body: { id: domain.id, deleted: true } };
  });
