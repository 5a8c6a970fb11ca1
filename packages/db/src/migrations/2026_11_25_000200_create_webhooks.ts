import { type Kysely, sql } from "kysely";
import { belongsTo, createProjectTable, createdAt, textId } from "./project-table";

// Webhook endpoints, their outbox and their attempt log.
//
// `webhook_deliveries` is the outbox: one row per event and endpoint, inserted in the
// transaction of the change that raised the event, so a committed change always gets its
// deliveries; a worker claims due rows (`claimed_until`), attempts them and writes every
// attempt to `webhook_attempts`. Secrets are sealed (AES-256-GCM), never stored in clear.
export async function up(db: Kysely<any>): Promise<void> {
  await createProjectTable(db, "webhooks")
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", sql`text[]`, (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("enabled", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("disabled_reason", "text")
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("previous_secret_sealed", "text")
    .addColumn("previous_secret_until", "timestamptz")
    .addColumn("failing_streak", "integer", (c) => c.notNull().defaultTo(0))
    .$call(createdAt)
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("webhooks_project_idx").on("webhooks").columns(["project_id", "id"]).execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("webhook_id", "text", belongsTo("webhooks"))
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    // The signed JSON body; null until the first attempt for an event raised inside a
    // statement that cannot render it (a stored message: its frame is read back by id).
    .addColumn("body", "text")
    .addColumn("subject_id", "text")
    .addColumn("state", "text", (c) => c.notNull().defaultTo("pending").check(sql`state in ('pending', 'succeeded', 'failed')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("claimed_until", "timestamptz")
    .$call(createdAt)
    .addPrimaryKeyConstraint("webhook_deliveries_pkey", ["event_id", "webhook_id"])
    .execute();
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`.execute(db);

  await db.schema
    .createTable("webhook_attempts")
    .$call(textId)
    .addColumn("webhook_id", "text", belongsTo("webhooks"))
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("attempted_at", "timestamptz", (c) => c.notNull())
    .addColumn("next_attempt_at", "timestamptz")
    .execute();
  await db.schema.createIndex("webhook_attempts_webhook_idx").on("webhook_attempts").columns(["webhook_id", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("webhook_attempts").execute();
  await db.schema.dropTable("webhook_deliveries").execute();
  await db.schema.dropTable("webhooks").execute();
}
