import type { Domain } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";
import { recordsToPublish } from "./dns-verification";

type DomainView = PublicComponents["schemas"]["Domain"];

/** The domain as the API shows it: its state, its token and the records to publish. */
export function toDomainView(domain: Domain, mxHost: string): DomainView {
  return {
    id: domain.id,
    domain: domain.domain,
    status: domain.status,
    verification_token: domain.ownershipToken,
    dns_records: recordsToPublish(domain.domain, domain.ownershipToken, mxHost),
    created_at: domain.createdAt.toISOString(),
    verified_at: domain.verifiedAt?.toISOString() ?? null,
    last_checked_at: domain.lastCheckedAt?.toISOString() ?? null,
    last_check: domain.lastCheck,
  };
}
