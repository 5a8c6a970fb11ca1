import type { Kysely } from "kysely";

// What the last DNS verification of a domain found: when it ran, and `{ ok, missing, detail }`
// (the records not found, and why, in words), shown in the domain view so a user sees what
// to publish. Null before the first verify.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("domains").addColumn("last_checked_at", "timestamptz").addColumn("last_check", "jsonb").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("domains").dropColumn("last_check").dropColumn("last_checked_at").execute();
}
