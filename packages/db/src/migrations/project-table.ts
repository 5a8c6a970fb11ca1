import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from "kysely";

// What the migrations build their tables with. Shipped migrations call every helper here, so
// what each one builds must never change: a new shape is a new helper, a changed table a new
// migration. This module's source keys the embedded database's template with theirs
// (embedded-template.ts).

/**
 * `create table <name> (id text primary key, project_id text not null references projects (id)
 * on delete cascade, …)`: how every table of a project's resources begins (its API keys,
 * domains, inboxes, messages, webhooks and audit events), whose rows go with their project. The
 * caller adds the other columns and executes it.
 */
export function createProjectTable(db: Kysely<any>, name: string) {
  return db.schema
    .createTable(name)
    .$call(textId)
    .addColumn("project_id", "text", belongsTo("projects"));
}

/**
 * `create table <name> (<key> text primary key, created_at …)`, executed: a set of text keys,
 * each with when it joined (the blocked recipients, the object-store prefixes to delete).
 */
export async function createKeySet(db: Kysely<any>, name: string, key: string): Promise<void> {
  await db.schema
    .createTable(name)
    .addColumn(key, "text", (c) => c.primaryKey())
    .$call(createdAt)
    .execute();
}

/** `id text primary key`, for `.$call(textId)`: ids are made by the application (newId), before the insert. */
export function textId<TB extends string, C extends string>(table: CreateTableBuilder<TB, C>) {
  return table.addColumn("id", "text", (c) => c.primaryKey());
}

/**
 * `not null references <table> (id) on delete cascade`, a column's builder: a row that cannot
 * outlive the one it belongs to, so deleting a row takes everything under it in the same
 * statement and leaves nothing for a sweep to find.
 */
export function belongsTo(table: string) {
  return (c: ColumnDefinitionBuilder) => c.notNull().references(`${table}.id`).onDelete("cascade");
}

/**
 * `created_at timestamptz not null default now()`, for `.$call(createdAt)`: when a row was
 * made, an instant whatever the session's time zone, which a writer need not send.
 */
export function createdAt<TB extends string, C extends string>(table: CreateTableBuilder<TB, C>) {
  return table.addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`));
}
