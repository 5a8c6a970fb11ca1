import { type Kysely, sql } from "kysely";
import { createProjectTable, createdAt } from "./project-table";

export async function up(db: Kysely<any>): Promise<void> {
  // Domain names are globally unique: one project claims a domain.
  await createProjectTable(db, "domains")
    .addColumn("domain", "text", (c) => c.notNull().unique())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending").check(sql`status in ('pending', 'verified')`))
    .addColumn("ownership_token", "text", (c) => c.notNull())
    .$call(createdAt)
    .addColumn("verified_at", "timestamptz")
    .execute();
  await db.schema.createIndex("domains_project_idx").on("domains").columns(["project_id", "id"]).execute();

  // `tag` uses the C collation so a dot-prefix is the byte range [prefix || '.', prefix || '/'),
  // which the (project_id, tag) index serves without LIKE escaping ('_' is a tag character).
  await createProjectTable(db, "inboxes")
    .addColumn("domain_id", "text", (c) => c.references("domains.id").onDelete("cascade"))
    .addColumn("tag", sql`text collate "C"`, (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull().unique())
    .addColumn("labels", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("retention_seconds", "integer", (c) => c.notNull())
    .$call(createdAt)
    .addColumn("last_message_at", "timestamptz")
    .addColumn("message_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // Ids are time-ordered ULIDs: (project_id, id) is the newest-first keyset of every list.
  await db.schema.createIndex("inboxes_project_id_idx").on("inboxes").columns(["project_id", "id"]).execute();
  await db.schema.createIndex("inboxes_project_tag_idx").on("inboxes").columns(["project_id", "tag"]).execute();
  await sql`create index inboxes_labels_idx on inboxes using gin (labels jsonb_path_ops)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("inboxes").execute();
  await db.schema.dropTable("domains").execute();
}
