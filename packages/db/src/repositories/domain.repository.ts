import type { Selectable } from "kysely";
import { type Db, inTransaction } from "../database";
import type { DomainCheck, DomainsTable } from "../tables/inbox.table";
import { camelCaseRow } from "./camel-case-row";
import { type IdPage, newestFirst } from "./id-page";

export type { DomainCheck } from "../tables/inbox.table";

export interface Domain {
  id: string;
  projectId: string;
  domain: string;
  status: "pending" | "verified";
  ownershipToken: string;
  createdAt: Date;
  verifiedAt: Date | null;
  lastCheckedAt: Date | null;
  lastCheck: DomainCheck | null;
}

function toDomain(row: Selectable<DomainsTable>): Domain {
  return camelCaseRow(row);
}

/** The project's domain with that id; another project's domain is invisible. */
export async function findDomainById(db: Db, projectId: string, id: string): Promise<Domain | null> {
  const row = await db.selectFrom("domains").selectAll().where("project_id", "=", projectId).where("id", "=", id).executeTakeFirst();
  return row ? toDomain(row) : null;
}

/** The project's domains, newest first (ids are time-ordered), keyset-paged. */
export async function listDomains(db: Db, projectId: string, page: IdPage): Promise<Domain[]> {
  const rows = await newestFirst(db.selectFrom("domains").selectAll().where("project_id", "=", projectId), page).execute();
  return rows.map(toDomain);
}

/**
 * Frees `domain` when another claim on it is still pending `days` after its creation: an
 * unverified claim must not hold a name forever against the project that really owns it. A
 * pending domain has no inboxes (they need a verified one), so nothing else goes with it.
 * Returns the released claim (its owner's audit trail records it), or null.
 */
export async function releaseStalePendingClaim(db: Db, domain: string, days: number): Promise<{ id: string; projectId: string } | null> {
  const released = await db
    .deleteFrom("domains")
    .where("domain", "=", domain.toLowerCase())
    .where("status", "=", "pending")
    .where("created_at", "<", new Date(Date.now() - days * 86_400_000))
    .returning(["id", "project_id"])
    .executeTakeFirst();
  return released === undefined ? null : { id: released.id, projectId: released.project_id };
}

/**
 * Stores what a verification found. A check that found everything verifies a pending domain;
 * `becameVerified` is true only for the call that made that transition (so its event is raised
 * once), and `onVerified` runs then, in the same transaction: what it records (the
 * `domain.verified` webhook event) commits with the transition or not at all. A verified
 * domain stays verified: records removed later do not take inboxes away.
 */
export async function recordDomainCheck(
  db: Db,
  projectId: string,
  id: string,
  check: DomainCheck,
  onVerified: (trx: Db, domain: Domain) => Promise<void> = async () => undefined,
): Promise<{ domain: Domain; becameVerified: boolean } | null> {
  return inTransaction(db, async (trx) => {
    const before = await trx.selectFrom("domains").select("status").where("project_id", "=", projectId).where("id", "=", id).forUpdate().executeTakeFirst();
    if (before === undefined) return null;
    const verifyNow = check.ok && before.status === "pending";
    const row = await trx
      .updateTable("domains")
      .set({
        last_checked_at: new Date(),
        last_check: JSON.stringify(check),
        ...(verifyNow ? { status: "verified" as const, verified_at: new Date() } : {}),
      })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const domain = toDomain(row);
    if (verifyNow) await onVerified(trx, domain);
    return { domain, becameVerified: verifyNow };
  });
}

/**
 * Deletes the project's domain unless inboxes live on it. The domain row is locked first, so an
 * inbox being created on it at that moment (its foreign key locks the same row) is either
 * counted or created after the domain is gone (and then fails on the key).
 */
export async function deleteDomainIfUnused(db: Db, projectId: string, id: string): Promise<{ found: false } | { found: true; deleted: boolean; inboxCount: number }> {
  return inTransaction(db, async (trx) => {
    const row = await trx.selectFrom("domains").select("id").where("project_id", "=", projectId).where("id", "=", id).forUpdate().executeTakeFirst();
    if (row === undefined) return { found: false };
    const { count } = await trx.selectFrom("inboxes").select((eb) => eb.fn.countAll<string>().as("count")).where("domain_id", "=", id).executeTakeFirstOrThrow();
    const inboxCount = Number(count);
    if (inboxCount > 0) return { found: true, deleted: false, inboxCount };
    await trx.deleteFrom("domains").where("id", "=", id).execute();
    return { found: true, deleted: true, inboxCount: 0 };
  });
}

/** The project's domain of that name; another project's domain is invisible. */
export async function findDomainByName(db: Db, projectId: string, domain: string): Promise<Domain | null> {
  const row = await db.selectFrom("domains").selectAll().where("project_id", "=", projectId).where("domain", "=", domain.toLowerCase()).executeTakeFirst();
  return row ? toDomain(row) : null;
}

/** Claims a domain name for a project; a claimed name surfaces as a unique violation. */
export async function insertDomain(
  db: Db,
  input: { id: string; projectId: string; domain: string; ownershipToken: string; status?: "pending" | "verified" },
): Promise<Domain> {
  const row = await db
    .insertInto("domains")
    .values({
      id: input.id,
      project_id: input.projectId,
      domain: input.domain.toLowerCase(),
      ownership_token: input.ownershipToken,
      status: input.status ?? "pending",
      verified_at: input.status === "verified" ? new Date() : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDomain(row);
}
