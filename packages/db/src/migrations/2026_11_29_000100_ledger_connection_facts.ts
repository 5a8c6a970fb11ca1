import type { Kysely } from "kysely";

// The connection an SMTP transaction came over: the client's IP address and its HELO name
// (MAIL FROM is envelope_from already). The parser checks SPF and DMARC against them, so a
// transaction the reconciler queues again is checked as its first parse would have. Nullable:
// rows accepted before this column existed have none.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accepted_transactions").addColumn("client_address", "text").addColumn("client_helo", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accepted_transactions").dropColumn("client_address").dropColumn("client_helo").execute();
}
