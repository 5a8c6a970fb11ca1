import { EventEmitter } from "node:events";
import { type ClaimedJob, type Db, claimJobs, completeJob, countWaitingJobs, extendJobClaim, failJob, insertJob, msUntilNextJob, retryJob, reviveJob } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import { JOB_OPTIONS, type JobName, type JobPayloads, assertJobPayload, jobNamesOf } from "./catalog";
import { type JobHandlers, type JobQueue, type JobWorker, PermanentJobError } from "./job-queue";

/**
 * The longest an idle worker sleeps without looking: a job another process added (a second
 * monolith on the same PostgreSQL without Redis, or one that crashed holding a claim) is
 * announced to no one here. One cheap query a minute; the monolith alone never needs it.
 */
const IDLE_LOOK_MS = 60_000;

/** How soon a worker whose look at the table failed (the database away) looks again. */
const RETRY_AFTER_ERROR_MS = 1000;

/** How long closing a worker lets running jobs finish before handing them back to the queue. */
export const WORKER_CLOSE_GRACE_MS = 10_000;

/** Whether every job of `running` settled within `graceMs` (a closing worker's wait). */
export async function finishedWithin(running: Iterable<Promise<void>>, graceMs: number): Promise<boolean> {
  const grace = new Promise<"timeout">((resolve) => setTimeout(resolve, graceMs, "timeout").unref());
  return (await Promise.race([Promise.all(running), grace])) !== "timeout";
}

/**
 * A worker of this process's queue: `wake` now and on every job `enqueued` here. Closing it stops
 * the wakes, then `close` stops the worker itself and settles what it was running.
 */
export function wakeOnEnqueue(enqueued: EventEmitter, wake: () => void, close: () => Promise<void>): JobWorker {
  enqueued.on("job", wake);
  wake();
  return {
    close() {
      enqueued.off("job", wake);
      return close();
    },
  };
}

/**
 * The JobQueue of the monolith without Redis: jobs are rows of the database it already has
 * (PGlite or PostgreSQL), so an accepted message's parse job is as durable as the message rows
 * and survives a restart. Same guarantees as the BullMQ adapter: idempotent job keys, delayed
 * jobs, retries with exponential backoff, failed jobs kept, crashed claims retried.
 */
export class DatabaseJobQueue implements JobQueue {
  /** Tells this process's workers that a job was added, so they need not wait for a poll. */
  readonly enqueued = new EventEmitter();
  private readonly schedules = new Map<JobName, NodeJS.Timeout>();

  constructor(private readonly db: Db) {
    this.enqueued.setMaxListeners(0);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId?: string; delayMs?: number } = {}): Promise<void> {
    assertJobPayload(name, payload);
    const { attempts, backoffMs } = JOB_OPTIONS[name];
    await insertJob(this.db, {
      name,
      payload,
      ...(options.jobId === undefined ? {} : { jobKey: options.jobId }),
      ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
      maxAttempts: attempts,
      backoffMs,
    });
    this.enqueued.emit("job", options.delayMs ?? 0);
  }

  depth(queue: string): Promise<number> {
    return countWaitingJobs(this.db, jobNamesOf(queue));
  }

  /** Completed jobs leave the table, so only a failed one needs reviving; else an idempotent enqueue. */
  async requeue<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<void> {
    assertJobPayload(name, payload);
    if (await reviveJob(this.db, name, jobId, JSON.stringify(payload))) {
      this.enqueued.emit("job", 0);
      return;
    }
    await this.enqueue(name, payload, { jobId });
  }

  /**
   * A timer in this process adds the job every `everyMs`, keyed by name, so a run that has not
   * started yet is not queued twice; the monolith is the only process, so one timer is the schedule.
   */
  async schedule<N extends JobName>(name: N, payload: JobPayloads[N], everyMs: number): Promise<void> {
    assertJobPayload(name, payload);
    const add = () => this.enqueue(name, payload, { jobId: `schedule:${name}` }).catch(() => undefined);
    // Declared again (as every instance may): the new period replaces the old timer.
    clearInterval(this.schedules.get(name));
    const timer = setInterval(add, everyMs);
    timer.unref();
    this.schedules.set(name, timer);
  }

  async close(): Promise<void> {
    for (const timer of this.schedules.values()) clearInterval(timer);
    this.schedules.clear();
  }
}

/**
 * Consumes the jobs `handlers` names from the database queue: claims due jobs up to
 * `concurrency`, wakes at once on an enqueue in this process and otherwise at the next due
 * time. A payload that fails its schema, or a PermanentJobError, fails the job for good; any
 * other failure retries after `backoff * 2^(attempt-1)` until its attempts are spent.
 */
export function startDatabaseWorker(
  queue: DatabaseJobQueue,
  db: Db,
  handlers: JobHandlers,
  options: { concurrency: number; logger: Logger; lockDurationMs: number; closeGraceMs?: number },
): JobWorker {
  const names = Object.keys(handlers) as JobName[];
  const running = new Map<string, Promise<void>>();
  let closed = false;
  let polling = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const wake = () => {
    if (closed) return;
    if (polling) {
      again = true;
      return;
    }
    clearTimeout(timer);
    void poll();
  };

  /**
   * Claims what is due, then sleeps until the next job falls due (a delayed job, a retry, a
   * claim that runs out) or an enqueue in this process wakes it, and at most IDLE_LOOK_MS: an
   * idle worker does not poll. After a failed look it tries again in a second.
   */
  async function poll(): Promise<void> {
    polling = true;
    let sleepMs: number | null = RETRY_AFTER_ERROR_MS;
    try {
      do {
        again = false;
        const claimed = await claimJobs(db, names, options.concurrency - running.size, options.lockDurationMs);
        for (const job of claimed) running.set(job.id, run(job).finally(() => running.delete(job.id) && wake()));
        if (claimed.length > 0 && running.size < options.concurrency) again = true;
      } while (again && !closed && running.size < options.concurrency);
      // Full: each finished job wakes the worker. Otherwise: the next due time, or a minute.
      sleepMs = running.size < options.concurrency ? Math.min((await msUntilNextJob(db, names)) ?? IDLE_LOOK_MS, IDLE_LOOK_MS) : null;
    } catch (error) {
      if (!closed) options.logger.warn({ err: error }, "job worker could not claim jobs");
    } finally {
      polling = false;
    }
    if (closed) return;
    if (again) return wake();
    if (sleepMs === null) return;
    timer = setTimeout(wake, Math.max(sleepMs, 5));
    timer.unref();
  }

  /** Settles a job's outcome; if even that fails, its claim runs out and it is retried: never dropped. */
  const settle = (job: ClaimedJob, outcome: Promise<void>) =>
    outcome.catch((error) => options.logger.warn({ err: error, job_id: job.id }, "job outcome not recorded"));

  async function run(job: ClaimedJob): Promise<void> {
    const name = job.name as JobName;
    try {
      assertJobPayload(name, job.payload);
    } catch (error) {
      // No retry can fix a payload that breaks its schema.
      return settle(job, failJob(db, job.id, (error as Error).message));
    }
    const renew = setInterval(() => void extendJobClaim(db, job.id, options.lockDurationMs).catch(() => undefined), options.lockDurationMs / 3);
    renew.unref();
    try {
      await (handlers[name] as (payload: unknown, attempt: number) => Promise<void>)(job.payload, job.attempt);
      await settle(job, completeJob(db, job.id));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      options.logger.warn({ err: error, job: name, job_id: job.id, attempt: job.attempt }, "job failed");
      const final = error instanceof PermanentJobError || job.attempt >= job.maxAttempts;
      await settle(job, final ? failJob(db, job.id, message) : retryJob(db, job.id, job.backoffMs * 2 ** (job.attempt - 1), message));
    } finally {
      clearInterval(renew);
    }
  }

  return wakeOnEnqueue(queue.enqueued, wake, async () => {
    closed = true;
    clearTimeout(timer);
    const unfinished = [...running.keys()];
    if (await finishedWithin(running.values(), options.closeGraceMs ?? WORKER_CLOSE_GRACE_MS)) return;
    // Hand the stragglers back, their attempt refunded: the next start runs them again.
    await Promise.all(unfinished.filter((id) => running.has(id)).map((id) => retryJob(db, id, 0, null, true).catch(() => undefined)));
  });
}
