import { sql } from "kysely";
import type { Db } from "../database";

/** A job as a worker holds it after claiming it. */
export interface ClaimedJob {
  id: string;
  name: string;
  payload: unknown;
  /** This attempt's number, from 1. */
  attempt: number;
  maxAttempts: number;
  backoffMs: number;
}

export interface NewJob {
  name: string;
  payload: unknown;
  /** Idempotency key: a second job with the same name and key is not added while the first exists. */
  jobKey?: string;
  maxAttempts: number;
  backoffMs: number;
  delayMs?: number;
}

/** Adds a job unless one with the same name and key exists; true when it was added. */
export async function insertJob(db: Db, job: NewJob): Promise<boolean> {
  const runAt = job.delayMs === undefined || job.delayMs <= 0 ? sql<Date>`now()` : sql<Date>`now() + make_interval(secs => ${job.delayMs / 1000})`;
  const result = await db
    .insertInto("jobs")
    .values({
      name: job.name,
      job_key: job.jobKey ?? null,
      payload: JSON.stringify(job.payload),
      max_attempts: job.maxAttempts,
      backoff_ms: job.backoffMs,
      run_at: runAt,
    })
    .onConflict((conflict) => conflict.columns(["name", "job_key"]).where("job_key", "is not", null).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Claims up to `limit` due jobs of these names, oldest due first, skipping jobs another worker
 * is claiming. Claiming counts an attempt and holds the job for `lockMs`: a worker that dies
 * holding it gives it back when that runs out.
 */
export async function claimJobs(db: Db, names: readonly string[], limit: number, lockMs: number): Promise<ClaimedJob[]> {
  if (limit <= 0 || names.length === 0) return [];
  const { rows } = await sql<{ id: string; name: string; payload: unknown; attempts: number; max_attempts: number; backoff_ms: number }>`
    update jobs set state = 'active', attempts = attempts + 1, run_at = now() + make_interval(secs => ${lockMs / 1000})
    where id in (
      select id from jobs
      where state <> 'failed' and run_at <= now() and name = any(${names as string[]}::text[])
      order by run_at, id
      limit ${limit}
      for update skip locked)
    returning id, name, payload, attempts, max_attempts, backoff_ms`.execute(db);
  return rows.map((row) => ({
    id: String(row.id),
    name: row.name,
    payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
    backoffMs: row.backoff_ms,
  }));
}

/** Keeps a running job claimed for another `lockMs`. */
export async function extendJobClaim(db: Db, id: string, lockMs: number): Promise<void> {
  await sql`update jobs set run_at = now() + make_interval(secs => ${lockMs / 1000}) where id = ${id} and state = 'active'`.execute(db);
}

/** A job that succeeded is done: it leaves the table. */
export async function completeJob(db: Db, id: string): Promise<void> {
  await db.deleteFrom("jobs").where("id", "=", id).execute();
}

/** Makes a job due again after `delayMs`; `refund` gives back the attempt its claim counted. */
export async function retryJob(db: Db, id: string, delayMs: number, error: string | null, refund = false): Promise<void> {
  await sql`
    update jobs set state = 'waiting', run_at = now() + make_interval(secs => ${delayMs / 1000}),
      last_error = coalesce(${error}, last_error), attempts = attempts - ${refund ? 1 : 0}
    where id = ${id}`.execute(db);
}

/** A job no retry can fix, or out of attempts: kept, failed, with its reason, for an operator. */
export async function failJob(db: Db, id: string, error: string): Promise<void> {
  await db.updateTable("jobs").set({ state: "failed", last_error: error }).where("id", "=", id).execute();
}

/** Jobs of these names waiting to run, due or delayed (neither claimed nor failed). */
export async function countWaitingJobs(db: Db, names: readonly string[]): Promise<number> {
  if (names.length === 0) return 0;
  const row = await db.selectFrom("jobs").select((eb) => eb.fn.countAll<string>().as("count")).where("state", "=", "waiting").where("name", "in", names).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Milliseconds until the next job of these names is due (0 when one is), or null when none waits. */
export async function msUntilNextJob(db: Db, names: readonly string[]): Promise<number | null> {
  const { rows } = await sql<{ wait_ms: number | string | null }>`
    select extract(epoch from (min(run_at) - now())) * 1000 as wait_ms
    from jobs where state <> 'failed' and name = any(${names as string[]}::text[])`.execute(db);
  const value = rows[0]?.wait_ms;
  // Clamped here, not with SQL's greatest(0, …), which ignores a NULL and so answered 0 for an
  // empty queue: an idle worker then looked again every 5 ms (a quarter of a core on PGlite).
  return value === null || value === undefined ? null : Math.max(0, Math.ceil(Number(value)));
}

/** Makes a failed job with this name and key due now with its attempts refunded; true when there was one. */
export async function reviveJob(db: Db, name: string, jobKey: string, payload: string): Promise<boolean> {
  const result = await db
    .updateTable("jobs")
    .set({ state: "waiting", attempts: 0, run_at: new Date(), payload })
    .where("name", "=", name)
    .where("job_key", "=", jobKey)
    .where("state", "=", "failed")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Failed jobs of a name, newest first: what an operator inspects (and tests assert). */
export async function failedJobs(db: Db, name: string): Promise<{ id: string; job_key: string | null; last_error: string | null; attempts: number }[]> {
  return db.selectFrom("jobs").select(["id", "job_key", "last_error", "attempts"]).where("name", "=", name).where("state", "=", "failed").orderBy("id", "desc").execute();
}
