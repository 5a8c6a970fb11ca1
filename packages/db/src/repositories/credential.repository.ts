import type { LimitState } from "@mailstop/core";
import { sql } from "kysely";
import { compiledOnce } from "../compiled-once";
import type { Db } from "../database";
import { countOf, organisationMessagesUsed, organisationStoredBytes, projectMessagesUsed } from "./usage.repository";

/** What authentication learns from one API key, in one query. */
export interface ApiKeyRecord {
  id: string;
  keyHash: Buffer;
  environment: "test" | "live";
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  project: {
    id: string;
    key: string;
    region: "us" | "eu";
    maxConcurrentWaits: number;
    /** Requests per second per key, by class; null: the server's default. */
    rateLimits: { read: number | null; write: number | null };
  };
  organisation: { id: string; suspended: boolean; organisationLimits: boolean };
  /** The limits that apply and the usage they need, for the allowance check of every request. */
  limits: LimitState;
}

export async function insertApiKey(
  db: Db,
  input: { id: string; projectId: string; keyHash: Buffer; environment: "test" | "live"; scopes: readonly string[]; expiresAt: Date | null },
): Promise<void> {
  await db
    .insertInto("api_keys")
    .values({
      id: input.id,
      project_id: input.projectId,
      key_hash: input.keyHash,
      environment: input.environment,
      scopes: [...input.scopes],
      expires_at: input.expiresAt,
    })
    .execute();
}

/** The columns of {@link ApiKeyRecord}, read from `api_keys as k`, `projects as p`, `organisations as o`. */
export const API_KEY_RECORD_COLUMNS = [
  "k.id",
  "k.key_hash",
  "k.environment",
  "k.scopes",
  "k.expires_at",
  "k.revoked_at",
  "p.id as project_id",
  "p.key as project_key",
  "p.region",
  "p.max_concurrent_waits",
  "p.rate_limit_read",
  "p.rate_limit_write",
  "o.id as organisation_id",
  "o.suspended",
  "o.organisation_limits",
  "p.monthly_messages",
  "o.monthly_messages as organisation_monthly_messages",
  "o.storage_bytes as organisation_storage_bytes",
] as const;

/**
 * The usage the allowance check needs, read in the key's own query so a message read costs no
 * second round trip. Each sum is evaluated only when a limit that applies needs it (CASE runs a
 * subquery only on its branch): with no limit set nothing more is read; a project allowance
 * reads at most two `usage_counters` rows by key; organisation limits sum over the
 * organisation's projects.
 */
export function limitUsageColumns(period: string) {
  return [
    sql<string | null>`case when not o.organisation_limits and p.monthly_messages is not null then ${projectMessagesUsed(sql.ref("p.id"), period)} end`.as(
      "project_messages_used",
    ),
    sql<string | null>`case when o.organisation_limits and o.monthly_messages is not null then ${organisationMessagesUsed(sql.ref("o.id"), period)} end`.as(
      "organisation_messages_used",
    ),
    sql<string | null>`case when o.organisation_limits and o.storage_bytes is not null then ${organisationStoredBytes(sql.ref("o.id"))} end`.as(
      "organisation_stored_bytes",
    ),
  ] as const;
}

interface ApiKeyRow {
  id: string;
  key_hash: Buffer;
  environment: "test" | "live";
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  project_id: string;
  project_key: string;
  region: "us" | "eu";
  max_concurrent_waits: number;
  rate_limit_read: number | null;
  rate_limit_write: number | null;
  organisation_id: string;
  suspended: boolean;
  organisation_limits: boolean;
  monthly_messages: string | null;
  organisation_monthly_messages: string | null;
  organisation_storage_bytes: string | null;
  project_messages_used: string | null;
  organisation_messages_used: string | null;
  organisation_stored_bytes: string | null;
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    keyHash: row.key_hash,
    environment: row.environment,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    project: {
      id: row.project_id,
      key: row.project_key,
      region: row.region,
      maxConcurrentWaits: row.max_concurrent_waits,
      rateLimits: { read: row.rate_limit_read, write: row.rate_limit_write },
    },
    organisation: { id: row.organisation_id, suspended: row.suspended, organisationLimits: row.organisation_limits },
    limits: {
      organisationLimits: row.organisation_limits,
      project: { monthlyMessages: countOf(row.monthly_messages), messagesUsed: countOf(row.project_messages_used) },
      organisation: {
        monthlyMessages: countOf(row.organisation_monthly_messages),
        messagesUsed: countOf(row.organisation_messages_used),
        storageBytes: countOf(row.organisation_storage_bytes),
        storedBytes: countOf(row.organisation_stored_bytes),
      },
    },
  };
}

const apiKeyByHash = compiledOnce(2, (db: Db, keyHash: Buffer, period: string) =>
  db
    .selectFrom("api_keys as k")
    .innerJoin("projects as p", "p.id", "k.project_id")
    .innerJoin("organisations as o", "o.id", "p.organisation_id")
    .select(API_KEY_RECORD_COLUMNS)
    .select(limitUsageColumns(period))
    .where("k.key_hash", "=", keyHash),
);

/**
 * The key stored under `keyHash` with its project, organisation and the usage its limits need
 * in `period` (a period start, see periodStart), or null. Every authenticated request asks this.
 */
export async function findApiKeyByHash(db: Db, keyHash: Buffer, period: string): Promise<ApiKeyRecord | null> {
  const [row] = await apiKeyByHash(db, keyHash, period);
  return row ? toApiKeyRecord(row) : null;
}

/**
 * Revokes a key; null when no such key exists. Revoking twice keeps the first instant;
 * `revokedNow` is true only for the call that revoked it (`now()` is the transaction's start,
 * which an earlier revocation cannot share).
 */
export async function revokeApiKey(db: Db, id: string): Promise<{ projectId: string; revokedNow: boolean } | null> {
  const row = await db
    .updateTable("api_keys")
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where("id", "=", id)
    .returning(["project_id", sql<boolean>`revoked_at = now()`.as("revoked_now")])
    .executeTakeFirst();
  return row === undefined ? null : { projectId: row.project_id, revokedNow: row.revoked_now };
}

/** Replaces the project's SMTP credential (one per project). */
export async function upsertSmtpCredential(db: Db, input: { projectId: string; username: string; passwordHash: Buffer }): Promise<void> {
  await db
    .insertInto("smtp_credentials")
    .values({ project_id: input.projectId, username: input.username, password_hash: input.passwordHash })
    .onConflict((oc) =>
      oc.column("project_id").doUpdateSet({ username: input.username, password_hash: input.passwordHash }),
    )
    .execute();
}

export async function insertBlockedRecipient(db: Db, address: string): Promise<void> {
  await db.insertInto("blocked_recipients").values({ address }).onConflict((oc) => oc.column("address").doNothing()).execute();
}
