import { type Kysely, sql } from "kysely";
import { belongsTo, createKeySet, createProjectTable, createdAt, textId } from "./project-table";

// Organisations own projects; projects own keys, the SMTP credential and every inbox.
// Secrets are stored only as SHA-256 digests (bytea), never in clear.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("organisations")
    .$call(textId)
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("suspended", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("organisation_limits", "boolean", (c) => c.notNull().defaultTo(false))
    .$call(createdAt)
    .execute();

  await db.schema
    .createTable("projects")
    .$call(textId)
    .addColumn("organisation_id", "text", belongsTo("organisations"))
    .addColumn("key", "text", (c) => c.notNull().unique())
    .addColumn("region", "text", (c) => c.notNull().check(sql`region in ('us', 'eu')`))
    .addColumn("max_concurrent_waits", "integer", (c) => c.notNull().defaultTo(100))
    .addColumn("ingest_ceiling", "bigint")
    .$call(createdAt)
    .execute();
  await db.schema.createIndex("projects_organisation_idx").on("projects").column("organisation_id").execute();

  await createProjectTable(db, "api_keys")
    .addColumn("key_hash", "bytea", (c) => c.notNull().unique())
    .addColumn("environment", "text", (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn("scopes", sql`text[]`, (c) => c.notNull())
    .addColumn("expires_at", "timestamptz")
    .addColumn("revoked_at", "timestamptz")
    .$call(createdAt)
    .execute();
  await db.schema.createIndex("api_keys_project_idx").on("api_keys").column("project_id").execute();

  await db.schema
    .createTable("smtp_credentials")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "bytea", (c) => c.notNull())
    .$call(createdAt)
    .execute();

  await createKeySet(db, "blocked_recipients", "address");
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["blocked_recipients", "smtp_credentials", "api_keys", "projects", "organisations"]) {
    await db.schema.dropTable(table).execute();
  }
}
