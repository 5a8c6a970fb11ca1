import type { Kysely } from "kysely";

// The html part and the header block move into the message row (up to the view's inline cap;
// a larger part stays in the object store). Writing them as objects cost two object-store PUTs
// per message on the way to it being visible, and reading them back cost a GET per view.
// Rows stored before this migration keep their part keys and are read from the store as before.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").addColumn("html_body", "text").addColumn("header_block", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("html_body").dropColumn("header_block").execute();
}
