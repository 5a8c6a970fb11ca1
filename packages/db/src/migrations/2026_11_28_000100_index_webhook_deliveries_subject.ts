import { type Kysely, sql } from "kysely";

// Finds a message's webhook deliveries and their attempts, for erasure (which scrubs their
// stored bodies and the receivers' answers) and the reaper (which deletes the finished
// deliveries with the message): without them both would scan the whole outbox and attempt log.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_deliveries_subject on webhook_deliveries (subject_id) where subject_id is not null`.execute(db);
  await sql`create index webhook_attempts_event on webhook_attempts (event_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_attempts_event`.execute(db);
  await sql`drop index webhook_deliveries_subject`.execute(db);
}
