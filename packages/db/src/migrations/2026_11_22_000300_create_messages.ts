import { type Kysely, sql } from "kysely";
import { belongsTo, createProjectTable, textId } from "./project-table";

// Raw first: the exact received bytes live in the object store under `raw_key`; every column
// here is derived from them by the parser and can be rebuilt by re-parsing.
export async function up(db: Kysely<any>): Promise<void> {
  await createProjectTable(db, "messages")
    .addColumn("inbox_id", "text", belongsTo("inboxes"))
    // Arrival order: the stream cursor and the "first stored wins" order of waits.
    .addColumn("seq", "bigserial", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('received', 'captured')`))
    .addColumn("raw_key", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("envelope_from", "text")
    .addColumn("envelope_to", "text", (c) => c.notNull())
    .addColumn("message_id", "text")
    .addColumn("correlation_id", "text")
    .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("from_address", "text")
    .addColumn("from_name", "text")
    .addColumn("to", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("cc", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("reply_to", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    // Header block as [name, value] pairs in order, names lower-cased, for header_contains.
    .addColumn("headers", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("labels", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    // The plain-text part, kept for body_contains; its full bytes are also in the object store.
    .addColumn("text_body", "text")
    .addColumn("parts", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("codes", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn("links", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("parse_error", "text")
    .addColumn("complaint", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("received_at", "timestamptz", (c) => c.notNull())
    // sim.delay: invisible to every read, list, wait and stream before this instant.
    .addColumn("visible_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    // Tombstone: set by DELETE /v1/messages/{id}; bytes are removed later by the reaper.
    .addColumn("deleted_at", "timestamptz")
    .execute();
  // A parse job retried or delivered twice finds its row here instead of inserting a second.
  await db.schema.createIndex("messages_raw_inbox_key").on("messages").columns(["raw_key", "inbox_id"]).unique().execute();
  await db.schema.createIndex("messages_inbox_seq_idx").on("messages").columns(["inbox_id", "seq"]).execute();
  await db.schema.createIndex("messages_project_seq_idx").on("messages").columns(["project_id", "seq"]).execute();
  await db.schema.createIndex("messages_expires_idx").on("messages").column("expires_at").execute();

  await db.schema
    .createTable("attachments")
    .$call(textId)
    .addColumn("message_id", "text", belongsTo("messages"))
    .addColumn("project_id", "text", belongsTo("projects"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("filename", "text")
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("content_id", "text")
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("blob_key", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("attachments_message_idx").on("attachments").columns(["message_id", "position"]).unique().execute();

  // Metering per project, billing period and metric (message.received, message.captured).
  await db.schema
    .createTable("usage_counters")
    .addColumn("project_id", "text", belongsTo("projects"))
    .addColumn("period_start", "date", (c) => c.notNull())
    .addColumn("metric", "text", (c) => c.notNull())
    .addColumn("used", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("usage_counters_pk", ["project_id", "period_start", "metric"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["usage_counters", "attachments", "messages"]) await db.schema.dropTable(table).execute();
}
