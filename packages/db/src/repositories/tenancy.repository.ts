import type { Db } from "../database";

export interface Organisation {
  id: string;
  name: string;
  suspended: boolean;
  organisationLimits: boolean;
}

export interface Project {
  id: string;
  key: string;
  organisationId: string;
  region: "us" | "eu";
  limits: { maxConcurrentWaits: number; ingestCeiling: number | null };
}

export async function insertOrganisation(db: Db, input: { id: string; name: string; organisationLimits?: boolean }): Promise<Organisation> {
  const row = await db
    .insertInto("organisations")
    .values({ id: input.id, name: input.name, organisation_limits: input.organisationLimits ?? false })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { id: row.id, name: row.name, suspended: row.suspended, organisationLimits: row.organisation_limits };
}

export async function updateOrganisation(
  db: Db,
  id: string,
  patch: { suspended?: boolean; organisationLimits?: boolean },
): Promise<Organisation | null> {
  const row = await db
    .updateTable("organisations")
    .set({
      ...(patch.suspended === undefined ? {} : { suspended: patch.suspended }),
      ...(patch.organisationLimits === undefined ? {} : { organisation_limits: patch.organisationLimits }),
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row ? { id: row.id, name: row.name, suspended: row.suspended, organisationLimits: row.organisation_limits } : null;
}

export async function organisationExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom("organisations").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
}

/** True when no organisation exists yet: the database of a first start. */
export async function isEmptyInstallation(db: Db): Promise<boolean> {
  return (await db.selectFrom("organisations").select("id").limit(1).executeTakeFirst()) === undefined;
}

const PROJECT_COLUMNS = ["id", "key", "organisation_id", "region", "max_concurrent_waits", "ingest_ceiling"] as const;

function toProject(row: {
  id: string;
  key: string;
  organisation_id: string;
  region: "us" | "eu";
  max_concurrent_waits: number;
  ingest_ceiling: string | null;
}): Project {
  return {
    id: row.id,
    key: row.key,
    organisationId: row.organisation_id,
    region: row.region,
    limits: { maxConcurrentWaits: row.max_concurrent_waits, ingestCeiling: row.ingest_ceiling === null ? null : Number(row.ingest_ceiling) },
  };
}

/** Inserts a project; a taken key surfaces as a unique violation on `projects_key_key`. */
export async function insertProject(db: Db, input: { id: string; organisationId: string; key: string; region: "us" | "eu" }): Promise<Project> {
  const row = await db
    .insertInto("projects")
    .values({ id: input.id, organisation_id: input.organisationId, key: input.key, region: input.region })
    .returning(PROJECT_COLUMNS)
    .executeTakeFirstOrThrow();
  return toProject(row);
}

export async function updateProjectLimits(
  db: Db,
  id: string,
  limits: { maxConcurrentWaits?: number; ingestCeiling?: number | null },
): Promise<Project | null> {
  const set = {
    ...(limits.maxConcurrentWaits === undefined ? {} : { max_concurrent_waits: limits.maxConcurrentWaits }),
    ...(limits.ingestCeiling === undefined ? {} : { ingest_ceiling: limits.ingestCeiling }),
  };
  const query =
    Object.keys(set).length === 0
      ? db.selectFrom("projects").select(PROJECT_COLUMNS).where("id", "=", id)
      : db.updateTable("projects").set(set).where("id", "=", id).returning(PROJECT_COLUMNS);
  const row = await query.executeTakeFirst();
  return row ? toProject(row) : null;
}

export const PROJECT_KEY_CONSTRAINT = "projects_key_key";

export async function findProjectById(db: Db, id: string): Promise<Project | null> {
  const row = await db.selectFrom("projects").select(PROJECT_COLUMNS).where("id", "=", id).executeTakeFirst();
  return row ? toProject(row) : null;
}
