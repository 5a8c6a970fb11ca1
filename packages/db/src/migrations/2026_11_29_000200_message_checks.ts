import type { Kysely } from "kysely";

// What the parser checked of a message (docs/api.md "Message checks"): its authentication
// (DKIM, SPF, DMARC, ARC) and its HTML's support across mail clients. In the message's row, so
// it goes with the row (the reaper, an erasure); it names domains, never an address. Null on
// messages stored before the parser checked them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").addColumn("checks", "jsonb").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("checks").execute();
}
