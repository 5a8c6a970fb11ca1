import { randomBytes } from "node:crypto";
import { type AuditSource, MailstopError, newId, systemSource } from "@mailstop/core";
import {
  type Db,
  type Domain,
  type DomainCheck,
  type RaisedDelivery,
  findDomainById,
  inTransaction,
  insertDomain,
  isUniqueViolation,
  raiseWebhookEvent,
  recordAudit,
  recordDomainCheck,
  releaseStalePendingClaim,
} from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { JobQueue } from "@mailstop/messaging";
import { invalidRequest } from "@mailstop/openapi";
import { notFoundOnProject, requireOnProject } from "../project-resource";
import { eventBody } from "../webhooks/event-body";
import { dispatchCommitted } from "../webhooks/relay";
import { type ServiceNames, checkDomainName } from "./domain-name";
import { toDomainView } from "./domain.view";

/** A claim still pending this many days after its creation no longer holds the name. */
export const PENDING_CLAIM_DAYS = 7;

/** The unique index on domain names (one claim per name across all projects). */
const DOMAIN_NAME_CONSTRAINT = "domains_domain_key";

/**
 * Claims `name` for the project, pending, with a fresh ownership token. A stale pending claim
 * by anyone is released first, in the same transaction; any other claim is a 409 `conflict`
 * that does not say which project holds it. Audited as `domain.created`; a released stale claim
 * as `domain.deleted` in its own project's trail (by the service: `system`, `domain-claims`).
 */
export async function claimDomain(db: Db, projectId: string, name: string, service: ServiceNames, source: AuditSource): Promise<Domain> {
  const checked = checkDomainName(name, service);
  if (!checked.ok) invalidRequest([{ in: "body", path: "/domain", message: checked.reason }], `${name} cannot receive mail here: it ${checked.reason}.`);
  try {
    return await inTransaction(db, async (trx) => {
      const released = await releaseStalePendingClaim(trx, checked.domain, PENDING_CLAIM_DAYS);
      if (released !== null) {
        await recordAudit(trx, {
          projectId: released.projectId,
          source: systemSource("domain-claims"),
          action: "domain.deleted",
          target: { type: "domain", id: released.id },
          details: { domain: checked.domain, reason: "pending_claim_expired" },
        });
      }
      const domain = await insertDomain(trx, { id: newId("domain"), projectId, domain: checked.domain, ownershipToken: randomBytes(18).toString("base64url") });
      await recordAudit(trx, { projectId, source, action: "domain.created", target: { type: "domain", id: domain.id }, details: { domain: domain.domain } });
      return domain;
    });
  } catch (error) {
    if (isUniqueViolation(error, DOMAIN_NAME_CONSTRAINT)) {
      throw new MailstopError("conflict", `The domain ${checked.domain} is already claimed.`, { details: { domain: checked.domain } });
    }
    throw error;
  }
}

export const domainNotFound = (reference: string) => notFoundOnProject("domain", reference);

/** The project's domain with that id, or `domain_not_found` (also for another project's). */
export function requireDomain(db: Db, projectId: string, id: string): Promise<Domain> {
  return requireOnProject("domain", id, () => findDomainById(db, projectId, id));
}

/**
 * Records a verification's result; when it verifies the domain, raises `domain.verified` for
 * the project's subscribed endpoints in the same transaction, so the event exists exactly when
 * the transition does, and audits it (`domain.verified`) likewise. Null when the domain was
 * deleted meanwhile. The event's deliveries are dispatched once it has committed.
 */
export async function recordVerification(
  deps: { db: Db; logger: Logger; mxHost: string; queue: JobQueue },
  domain: Domain,
  check: DomainCheck,
  source: AuditSource,
): Promise<Domain | null> {
  let raised: RaisedDelivery[] = [];
  const recorded = await recordDomainCheck(deps.db, domain.projectId, domain.id, check, async (trx, verified) => {
    const at = verified.verifiedAt ?? new Date();
    raised = await raiseWebhookEvent(trx, {
      projectId: verified.projectId,
      eventId: newId("webhookEvent"),
      type: "domain.verified",
      body: eventBody("domain.verified", toDomainView(verified, deps.mxHost), at),
    });
    await recordAudit(trx, { projectId: verified.projectId, source, action: "domain.verified", target: { type: "domain", id: verified.id }, details: { domain: verified.domain } });
  });
  await dispatchCommitted(deps, raised);
  if (recorded?.becameVerified) deps.logger.info({ project_id: domain.projectId, domain_id: domain.id, domain: domain.domain }, "domain verified");
  return recorded?.domain ?? null;
}
