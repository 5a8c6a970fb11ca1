import type { Db } from "../database";

export interface Domain {
  id: string;
  projectId: string;
  domain: string;
  status: "pending" | "verified";
  ownershipToken: string;
  createdAt: Date;
  verifiedAt: Date | null;
}

function toDomain(row: {
  id: string;
  project_id: string;
  domain: string;
  status: "pending" | "verified";
  ownership_token: string;
  created_at: Date;
  verified_at: Date | null;
}): Domain {
  return {
    id: row.id,
    projectId: row.project_id,
    domain: row.domain,
    status: row.status,
    ownershipToken: row.ownership_token,
    createdAt: row.created_at,
    verifiedAt: row.verified_at,
  };
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
