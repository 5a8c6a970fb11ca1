import { type Kysely, sql } from "kysely";
import { createdAt } from "./project-table";

// The job queue of the monolith without Redis: jobs live in the database next to the rows they
// produce, so a crash after the SMTP edge's 250 loses nothing (the fleet keeps them in BullMQ).
// `run_at` is when the job may next be claimed: claiming pushes it one lock duration ahead, so
// the job of a worker that died becomes due again by itself.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", "bigint", (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("job_key", "text")
    .addColumn("payload", "jsonb", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().defaultTo("waiting").check(sql`state in ('waiting', 'active', 'failed')`))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("backoff_ms", "integer", (c) => c.notNull())
    .addColumn("run_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("last_error", "text")
    .$call(createdAt)
    .execute();
  // A job key (BullMQ's jobId) makes an enqueue idempotent while the job exists.
  await db.schema.createIndex("jobs_job_key").on("jobs").columns(["name", "job_key"]).unique().where(sql.ref("job_key"), "is not", null).execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["run_at", "id"]).where(sql.ref("state"), "<>", "failed").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("jobs").execute();
}
