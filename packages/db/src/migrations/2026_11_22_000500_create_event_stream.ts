import { type Kysely, sql } from "kysely";
import { belongsTo, createdAt } from "./project-table";

// The event stream's cursor is the order in which messages became visible, not the order in
// which they were stored: a `sim.delay` copy is stored at once but shown seconds later, so a
// stream resumed after a later message must still find it. `stream_seq` is taken from its own
// sequence when a copy becomes visible (at insert, or by the delayed publish-arrival job), in
// both cases while the inbox row is locked, so within an inbox it follows commit order.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence message_stream_seq`.execute(db);
  await db.schema.alterTable("messages").addColumn("stream_seq", "bigint").execute();
  // Rows stored before this migration keep their arrival order.
  await sql`
    update messages m set stream_seq = ordered.n
    from (select id, row_number() over (order by seq) as n from messages) ordered
    where m.id = ordered.id`.execute(db);
  await sql`select setval('message_stream_seq', greatest((select max(stream_seq) from messages), 1), (select count(*) > 0 from messages))`.execute(db);
  await db.schema.createIndex("messages_inbox_stream_seq_idx").on("messages").columns(["inbox_id", "stream_seq"]).where(sql.ref("stream_seq"), "is not", null).unique().execute();

  // Stream tokens: stored only as SHA-256 digests, like API keys. Tied to the key that minted
  // them, so revoking the key ends its tokens too.
  await db.schema
    .createTable("stream_tokens")
    .addColumn("token_hash", "bytea", (c) => c.primaryKey())
    .addColumn("project_id", "text", belongsTo("projects"))
    .addColumn("inbox_id", "text", belongsTo("inboxes"))
    .addColumn("api_key_id", "text", belongsTo("api_keys"))
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .$call(createdAt)
    .execute();
  await db.schema.createIndex("stream_tokens_expires_idx").on("stream_tokens").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("stream_tokens").execute();
  await db.schema.dropIndex("messages_inbox_stream_seq_idx").execute();
  await db.schema.alterTable("messages").dropColumn("stream_seq").execute();
  await sql`drop sequence message_stream_seq`.execute(db);
}
