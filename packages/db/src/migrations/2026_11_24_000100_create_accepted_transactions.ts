import { type Kysely, sql } from "kysely";
import { textId } from "./project-table";

// The accept ledger: one row per SMTP transaction the edge answered 250, written before that
// 250. The parse job in the queue is only the fast path; a row still open after a grace period
// is re-enqueued by the reconciler, so a lost job (Redis restarted or flushed, an eviction, a
// crash between the put and the enqueue) never loses accepted mail. The parser marks the row
// done in the transaction that stores its messages.
//
// `parse_warnings` on messages: what the parser could not read of a message it still stored
// (a MIME bomb cut at a cap, an unparseable source), shown in the message view.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("accepted_transactions")
    .$call(textId)
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("envelope_from", "text")
    .addColumn("deliveries", "jsonb", (c) => c.notNull())
    .addColumn("accepted_at", "timestamptz", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().defaultTo("open"))
    .addColumn("requeues", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("requeued_at", "timestamptz")
    .addColumn("done_at", "timestamptz")
    .execute();
  // The reconciler's scan: open rows, oldest first; done rows are pruned by age.
  await sql`create index accepted_transactions_open on accepted_transactions (accepted_at) where state = 'open'`.execute(db);
  await sql`create index accepted_transactions_done on accepted_transactions (done_at) where state = 'done'`.execute(db);
  await db.schema
    .alterTable("messages")
    .addColumn("parse_warnings", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("messages").dropColumn("parse_warnings").execute();
  await db.schema.dropTable("accepted_transactions").execute();
}
