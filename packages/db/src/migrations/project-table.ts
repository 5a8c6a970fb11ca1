import type { Kysely } from "kysely";

/**
 * `create table <name> (id text primary key, project_id text not null references projects (id)
 * on delete cascade, …)`: how every table of a project's resources begins (its API keys,
 * domains, inboxes, messages, webhooks and audit events), whose rows go with their project. The
 * caller adds the other columns and executes it.
 *
 * Shipped migrations build their tables with it, so what it builds must never change: a new
 * shape is a new helper, a changed table a new migration. Its source keys the embedded
 * database's template with theirs (embedded-template.ts).
 */
export function createProjectTable(db: Kysely<any>, name: string) {
  return db.schema
    .createTable(name)
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"));
}
