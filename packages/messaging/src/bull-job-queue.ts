import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { withinDeadline } from "@mailstop/core";
import type { Logger } from "@mailstop/logging";
import { JOB_OPTIONS, type JobName, type JobPayloads, assertJobPayload } from "./catalog";
import { type JobHandlers, type JobQueue, type JobWorker, PermanentJobError } from "./job-queue";

/**
 * How long an enqueue may take. BullMQ waits for Redis to come back rather than failing, but
 * the SMTP edge must answer a sender (451, retry later) instead of holding its DATA open.
 */
export const ENQUEUE_TIMEOUT_MS = 3000;

/** How often the schedules are declared again (see `schedule`). */
export const SCHEDULE_REDECLARE_MS = 60_000;

/**
 * BullMQ, loaded when a queue or a worker is first made: every process on Redis builds a
 * BullJobQueue, and a waiter never uses it (BullMQ and its dependencies are ≈ 8 MB of a
 * process's memory; docs/performance.md "What a process loads").
 */
function bullmq(): typeof import("bullmq") {
  return require("bullmq") as typeof import("bullmq");
}

/** The JobQueue on BullMQ. `prefix` isolates installations (and tests) sharing one Redis. */
export class BullJobQueue implements JobQueue {
  private readonly queues = new Map<string, Queue>();
  /** Each scheduled job's declaration, repeated by `keeper`. */
  private readonly schedules = new Map<JobName, () => Promise<void>>();
  private keeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new (bullmq().Queue)(name, { connection: this.connection, prefix: this.prefix });
      // Without a listener BullMQ prints connection errors to the console, outside the log.
      queue.on("error", (error) => this.logger.warn({ err: error, queue: name }, "job queue error"));
      this.queues.set(name, queue);
    }
    return queue;
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId?: string; delayMs?: number } = {}): Promise<void> {
    assertJobPayload(name, payload);
    const { queue, attempts, backoffMs, keepCompleted } = JOB_OPTIONS[name];
    const added = this.queue(queue).add(name, payload, {
      ...(options.jobId === undefined ? {} : { jobId: options.jobId }),
      ...(options.delayMs === undefined ? {} : { delay: options.delayMs }),
      attempts,
      backoff: { type: "exponential", delay: backoffMs },
      removeOnComplete: keepCompleted === false ? true : { count: 1000 },
      // A job that keeps failing stays in the failed set for an operator to see and retry.
      removeOnFail: false,
    });
    // A late success after the timeout is harmless: job ids make the enqueue idempotent.
    await withinDeadline(added, ENQUEUE_TIMEOUT_MS, `enqueue of ${name}`);
  }

  async depth(queue: string): Promise<number> {
    const counts = await this.queue(queue).getJobCounts("waiting", "delayed", "prioritized");
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  async requeue<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<void> {
    const replace = async () => {
      const existing = await this.queue(JOB_OPTIONS[name].queue).getJob(jobId);
      if (existing) {
        const state = await existing.getState();
        if (state !== "completed" && state !== "failed" && state !== "unknown") return;
        // Settled jobs hold their id; a removed one frees it for the fresh job.
        await existing.remove();
      }
    };
    await withinDeadline(replace(), ENQUEUE_TIMEOUT_MS, `requeue of ${name}`);
    await this.enqueue(name, payload, { jobId });
  }

  async schedule<N extends JobName>(name: N, payload: JobPayloads[N], everyMs: number): Promise<void> {
    assertJobPayload(name, payload);
    const declare = async () => {
      const { queue, attempts, backoffMs } = JOB_OPTIONS[name];
      await this.queue(queue).upsertJobScheduler(name, { every: everyMs }, {
        name,
        data: payload,
        opts: { attempts, backoff: { type: "exponential", delay: backoffMs }, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
      });
    };
    this.schedules.set(name, declare);
    await declare();
    // A scheduler lives in Redis: a Redis restarted without persistence, or flushed, forgets it,
    // and the reaper and the reconciler would stop for good. Declaring again is idempotent: at
    // once when the connection is back (a restart), and every minute (a flush).
    if (this.keeper === undefined) {
      this.keeper = setInterval(this.declareAgain, SCHEDULE_REDECLARE_MS).unref();
      this.connection.on("ready", this.declareAgain);
    }
  }

  private readonly declareAgain = () => {
    for (const [scheduled, declare] of this.schedules) {
      declare().catch((error: unknown) => this.logger.warn({ err: error, job: scheduled }, "job schedule not declared again"));
    }
  };

  async close(): Promise<void> {
    clearInterval(this.keeper);
    this.connection.off("ready", this.declareAgain);
    this.schedules.clear();
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}

/**
 * Consumes the jobs `handlers` names. A payload that fails its schema, or a job no handler
 * knows, is unrecoverable (no retry can fix it); every other failure retries with backoff.
 */
export function startBullWorker(
  connection: Redis,
  prefix: string,
  handlers: JobHandlers,
  options: { concurrency: number; logger: Logger; lockDurationMs?: number },
): JobWorker {
  const { UnrecoverableError, Worker } = bullmq();
  const lockDuration = options.lockDurationMs ?? 30_000;
  const names = Object.keys(handlers) as JobName[];
  const queueNames = [...new Set(names.map((name) => JOB_OPTIONS[name].queue))];
  const workers = queueNames.map((queueName) => {
    const worker = new Worker(
      queueName,
      async (job) => {
        const name = job.name as JobName;
        const handler = handlers[name] as ((payload: unknown, attempt: number) => Promise<void>) | undefined;
        if (!handler) throw new UnrecoverableError(`no handler for job ${job.name}`);
        try {
          assertJobPayload(name, job.data);
        } catch (error) {
          throw new UnrecoverableError((error as Error).message);
        }
        try {
          await handler(job.data, job.attemptsMade + 1);
        } catch (error) {
          if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
          throw error;
        }
      },
      {
        connection,
        prefix,
        concurrency: options.concurrency,
        // A crashed worker's jobs return to the queue once its lock expires. They are retried
        // (idempotently) many times rather than failed after one stall: accepted mail is never
        // left unparsed because a worker crashed twice.
        lockDuration,
        stalledInterval: lockDuration,
        maxStalledCount: 10,
      },
    );
    worker.on("failed", (job, error) => {
      options.logger.warn({ err: error, job: job?.name, job_id: job?.id, attempt: job?.attemptsMade }, "job failed");
    });
    worker.on("error", (error) => options.logger.warn({ err: error }, "job worker error"));
    return worker;
  });
  return {
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
    },
  };
}
