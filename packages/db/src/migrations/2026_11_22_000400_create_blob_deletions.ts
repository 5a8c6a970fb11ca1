import type { Kysely } from "kysely";
import { createKeySet } from "./project-table";

// An outbox of object-store prefixes whose rows are gone: written in the same transaction that
// deletes the last row of a transaction's raw source, emptied by the reaper. A crash between
// the database and the object store therefore never leaks stored mail.
export async function up(db: Kysely<any>): Promise<void> {
  await createKeySet(db, "blob_deletions", "prefix");
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("blob_deletions").execute();
}
