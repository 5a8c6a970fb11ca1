import type { Kysely } from "kysely";

// The operator's limits beside the existing two (docs/operator.md "Limits"): a project's monthly
// message allowance and its per-key request rates (null: the server's defaults apply), and an
// organisation's message and storage limits, summed over its projects when its organisation
// limits are on. Null means no limit.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("projects")
    .addColumn("monthly_messages", "bigint")
    .addColumn("rate_limit_read", "integer")
    .addColumn("rate_limit_write", "integer")
    .execute();
  await db.schema.alterTable("organisations").addColumn("monthly_messages", "bigint").addColumn("storage_bytes", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("organisations").dropColumn("storage_bytes").dropColumn("monthly_messages").execute();
  await db.schema.alterTable("projects").dropColumn("rate_limit_write").dropColumn("rate_limit_read").dropColumn("monthly_messages").execute();
}
