import type { Db } from "../database";

export interface Organisation {
  id: string;
  name: string;
  suspended: boolean;
  organisationLimits: boolean;
  /** Summed over the organisation's projects; they apply while `organisationLimits` is on. Null: none. */
  limits: OrganisationLimits;
}

export interface OrganisationLimits {
  monthlyMessages: number | null;
  storageBytes: number | null;
}

export interface ProjectLimits {
  maxConcurrentWaits: number;
  ingestCeiling: number | null;
  monthlyMessages: number | null;
  /** Requests per second per key; null: the server's default for the class. */
  rateLimitRead: number | null;
  rateLimitWrite: number | null;
}

export interface Project {
  id: string;
  key: string;
  organisationId: string;
  region: "us" | "eu";
  limits: ProjectLimits;
}

/** int8 columns come back from pg as strings (to keep precision); limits fit a number. */
const bigintOrNull = (value: string | number | null): number | null => (value === null ? null : Number(value));

function toOrganisation(row: {
  id: string;
  name: string;
  suspended: boolean;
  organisation_limits: boolean;
  monthly_messages: string | null;
  storage_bytes: string | null;
}): Organisation {
  return {
    id: row.id,
    name: row.name,
    suspended: row.suspended,
    organisationLimits: row.organisation_limits,
    limits: { monthlyMessages: bigintOrNull(row.monthly_messages), storageBytes: bigintOrNull(row.storage_bytes) },
  };
}

export async function insertOrganisation(db: Db, input: { id: string; name: string; organisationLimits?: boolean }): Promise<Organisation> {
  const row = await db
    .insertInto("organisations")
    .values({ id: input.id, name: input.name, organisation_limits: input.organisationLimits ?? false })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toOrganisation(row);
}

export async function updateOrganisation(
  db: Db,
  id: string,
  patch: { suspended?: boolean; organisationLimits?: boolean; limits?: Partial<OrganisationLimits> },
): Promise<Organisation | null> {
  const set = {
    ...(patch.suspended === undefined ? {} : { suspended: patch.suspended }),
    ...(patch.organisationLimits === undefined ? {} : { organisation_limits: patch.organisationLimits }),
    ...(patch.limits?.monthlyMessages === undefined ? {} : { monthly_messages: patch.limits.monthlyMessages }),
    ...(patch.limits?.storageBytes === undefined ? {} : { storage_bytes: patch.limits.storageBytes }),
  };
  const query =
    Object.keys(set).length === 0
      ? db.selectFrom("organisations").selectAll().where("id", "=", id)
      : db.updateTable("organisations").set(set).where("id", "=", id).returningAll();
  const row = await query.executeTakeFirst();
  return row ? toOrganisation(row) : null;
}

export async function organisationExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom("organisations").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
}

/** True when no organisation exists yet: the database of a first start. */
export async function isEmptyInstallation(db: Db): Promise<boolean> {
  return (await db.selectFrom("organisations").select("id").limit(1).executeTakeFirst()) === undefined;
}

/** The keys of the installation's first `limit` projects, oldest first: what a restart names. */
export async function oldestProjectKeys(db: Db, limit: number): Promise<string[]> {
  const rows = await db.selectFrom("projects").select("key").orderBy("created_at").orderBy("id").limit(limit).execute();
  return rows.map((row) => row.key);
}

/**
 * Whether the installation knows these secrets (by their SHA-256): a live API key with
 * `apiKeyHash`, and the SMTP credential of `username` with `passwordHash`. How a restart tells
 * that bootstrap settings it cannot apply any more still match what they once created.
 */
export async function knowsSecrets(db: Db, secrets: { apiKeyHash: Buffer | null; smtp: { username: string; passwordHash: Buffer } | null }): Promise<{ apiKey: boolean; smtpPassword: boolean }> {
  const apiKey =
    secrets.apiKeyHash !== null &&
    (await db
      .selectFrom("api_keys")
      .select("id")
      .where("key_hash", "=", secrets.apiKeyHash)
      .where("revoked_at", "is", null)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", new Date())]))
      .executeTakeFirst()) !== undefined;
  const smtpPassword =
    secrets.smtp !== null &&
    (await db.selectFrom("smtp_credentials").select("project_id").where("username", "=", secrets.smtp.username).where("password_hash", "=", secrets.smtp.passwordHash).executeTakeFirst()) !== undefined;
  return { apiKey, smtpPassword };
}

const PROJECT_COLUMNS = [
  "id",
  "key",
  "organisation_id",
  "region",
  "max_concurrent_waits",
  "ingest_ceiling",
  "monthly_messages",
  "rate_limit_read",
  "rate_limit_write",
] as const;

function toProject(row: {
  id: string;
  key: string;
  organisation_id: string;
  region: "us" | "eu";
  max_concurrent_waits: number;
  ingest_ceiling: string | null;
  monthly_messages: string | null;
  rate_limit_read: number | null;
  rate_limit_write: number | null;
}): Project {
  return {
    id: row.id,
    key: row.key,
    organisationId: row.organisation_id,
    region: row.region,
    limits: {
      maxConcurrentWaits: row.max_concurrent_waits,
      ingestCeiling: bigintOrNull(row.ingest_ceiling),
      monthlyMessages: bigintOrNull(row.monthly_messages),
      rateLimitRead: row.rate_limit_read,
      rateLimitWrite: row.rate_limit_write,
    },
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
  limits: Partial<ProjectLimits>,
): Promise<Project | null> {
  const set = {
    ...(limits.maxConcurrentWaits === undefined ? {} : { max_concurrent_waits: limits.maxConcurrentWaits }),
    ...(limits.ingestCeiling === undefined ? {} : { ingest_ceiling: limits.ingestCeiling }),
    ...(limits.monthlyMessages === undefined ? {} : { monthly_messages: limits.monthlyMessages }),
    ...(limits.rateLimitRead === undefined ? {} : { rate_limit_read: limits.rateLimitRead }),
    ...(limits.rateLimitWrite === undefined ? {} : { rate_limit_write: limits.rateLimitWrite }),
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
