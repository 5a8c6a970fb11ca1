import { type Kysely, sql } from "kysely";
import { createProjectTable } from "./project-table";

// The audit trail (docs/decisions.md "Audit trail and erasure"): one row per change, written in
// the transaction of the change itself, so a change and its row commit or roll back together.
// Listed per project newest first, keyset-paged on (at, id): the index serves that order and
// the `since`/`until` range; an `action` filter reads the same index.
export async function up(db: Kysely<any>): Promise<void> {
  await createProjectTable(db, "audit_events")
    .addColumn("at", "timestamptz", (c) => c.notNull())
    .addColumn("actor_type", "text", (c) => c.notNull().check(sql`actor_type in ('api_key', 'admin', 'system')`))
    .addColumn("actor_id", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("request_id", "text")
    .addColumn("details", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`create index audit_events_listing on audit_events (project_id, at desc, id desc)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("audit_events").execute();
}
