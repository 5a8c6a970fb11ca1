import { type Kysely, sql } from "kysely";

// The `storage.bytes` meter: bytes of each project's stored, not-deleted message copies, kept
// as one counter per project so usage and organisation limits read it with one row, never a
// sum over every message. Moved in the transaction of each store, tombstone and hard delete
// (docs/decisions.md "Usage, allowances and organisation limits"). Counted from the rows
// already stored.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("storage_usage")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`
    insert into storage_usage (project_id, bytes)
    select project_id, sum(size) from messages where deleted_at is null group by project_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("storage_usage").execute();
}
