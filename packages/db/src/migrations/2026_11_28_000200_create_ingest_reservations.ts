import { type Kysely, sql } from "kysely";
import { belongsTo } from "./project-table";

// Reservations of metered recipients (docs/decisions.md "Limits that count what they admit"):
// one row per SMTP transaction and project, holding how many recipients RCPT accepted for a
// project with an ingest ceiling or organisation limits. `transaction_id` is the id the
// transaction's accept-ledger row will have; a row counts against the limits while that ledger
// row is open, or, before there is one, until `expires_at` (an edge killed mid-transaction
// leaves its rows to expire). Once the parser stores the messages the ledger row is done and
// `usage_counters` counts them instead.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("ingest_reservations")
    .addColumn("transaction_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", belongsTo("projects"))
    .addColumn("organisation_id", "text", belongsTo("organisations"))
    .addColumn("recipients", "integer", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("ingest_reservations_pk", ["transaction_id", "project_id"])
    .execute();
  // The reservation's count: the organisation's rows, or one project's among them.
  await sql`create index ingest_reservations_organisation on ingest_reservations (organisation_id, project_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("ingest_reservations").execute();
}
