import { sql } from "kysely";
import type { Db } from "../database";

/** Where a receiving-edge recipient goes: its inbox and the project that owns it. */
export interface DeliveryTarget {
  inboxId: string;
  projectId: string;
  projectKey: string;
  ingestCeiling: number | null;
}

/**
 * The inbox at a shared-domain address, within the project of that key. The project is part of
 * the match, so an address can only reach the project its key names.
 */
export async function findSharedDeliveryTarget(db: Db, projectKey: string, address: string): Promise<DeliveryTarget | null> {
  const row = await db
    .selectFrom("inboxes as i")
    .innerJoin("projects as p", "p.id", "i.project_id")
    .select(["i.id as inbox_id", "p.id as project_id", "p.key as project_key", "p.ingest_ceiling"])
    .where("p.key", "=", projectKey)
    .where("i.address", "=", address.toLowerCase())
    .where("i.domain_id", "is", null)
    .executeTakeFirst();
  return row ? toTarget(row) : null;
}

/** The inbox at a custom-domain address, when the domain is verified. */
export async function findCustomDeliveryTarget(db: Db, address: string): Promise<DeliveryTarget | null> {
  const row = await db
    .selectFrom("inboxes as i")
    .innerJoin("domains as d", (join) => join.onRef("d.id", "=", "i.domain_id").onRef("d.project_id", "=", "i.project_id"))
    .innerJoin("projects as p", "p.id", "i.project_id")
    .select(["i.id as inbox_id", "p.id as project_id", "p.key as project_key", "p.ingest_ceiling"])
    .where("i.address", "=", address.toLowerCase())
    .where("d.status", "=", "verified")
    .executeTakeFirst();
  return row ? toTarget(row) : null;
}

function toTarget(row: { inbox_id: string; project_id: string; project_key: string; ingest_ceiling: string | null }): DeliveryTarget {
  return {
    inboxId: row.inbox_id,
    projectId: row.project_id,
    projectKey: row.project_key,
    ingestCeiling: row.ingest_ceiling === null ? null : Number(row.ingest_ceiling),
  };
}

export async function isBlockedRecipient(db: Db, address: string): Promise<boolean> {
  return (await db.selectFrom("blocked_recipients").select("address").where("address", "=", address.toLowerCase()).executeTakeFirst()) !== undefined;
}

/** Messages the project took in during the period (received and captured), for its ingest ceiling. */
export async function ingestedInPeriod(db: Db, projectId: string, periodStart: string): Promise<number> {
  const row = await db
    .selectFrom("usage_counters")
    .select(sql<string>`coalesce(sum(used), 0)`.as("used"))
    .where("project_id", "=", projectId)
    .where("period_start", "=", periodStart)
    .where("metric", "in", ["message.received", "message.captured"])
    .executeTakeFirst();
  return Number(row?.used ?? 0);
}

/** The capture relay's credential of that username, with its project. */
export async function findSmtpCredential(
  db: Db,
  username: string,
): Promise<{ projectId: string; projectKey: string; passwordHash: Buffer; ingestCeiling: number | null } | null> {
  const row = await db
    .selectFrom("smtp_credentials as c")
    .innerJoin("projects as p", "p.id", "c.project_id")
    .select(["p.id as project_id", "p.key as project_key", "c.password_hash", "p.ingest_ceiling"])
    .where("c.username", "=", username)
    .executeTakeFirst();
  return row
    ? {
        projectId: row.project_id,
        projectKey: row.project_key,
        passwordHash: row.password_hash,
        ingestCeiling: row.ingest_ceiling === null ? null : Number(row.ingest_ceiling),
      }
    : null;
}
