import { type Kysely, sql } from "kysely";

// An outbox of object-store prefixes whose rows are gone: written in the same transaction that
// deletes the last row of a transaction's raw source, emptied by the reaper. A crash between
// the database and the object store therefore never leaks stored mail.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("blob_deletions")
    .addColumn("prefix", "text", (c) => c.primaryKey())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("blob_deletions").execute();
}
