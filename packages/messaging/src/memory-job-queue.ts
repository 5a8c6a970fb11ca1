import { EventEmitter } from "node:events";
import type { Logger } from "@mailstop/logging";
import { JOB_OPTIONS, type JobName, type JobPayloads, assertJobPayload } from "./catalog";
import { WORKER_CLOSE_GRACE_MS, finishedWithin, wakeOnEnqueue } from "./database-job-queue";
import { type JobHandlers, type JobQueue, type JobWorker, PermanentJobError } from "./job-queue";

interface MemoryJob {
  key: string;
  name: JobName;
  payload: unknown;
  attempt: number;
  dueAt: number;
  state: "waiting" | "running" | "failed";
  reason: string | null;
}

/**
 * How many completed jobs' ids are remembered, so an enqueue with one of them adds nothing (as
 * BullMQ keeps its last 1,000 completed jobs); `requeue` still runs such a job again.
 */
const COMPLETED_KEPT = 1000;

/**
 * A JobQueue in this process's memory, for jobs that something else repairs when a crash loses
 * them: the embedded monolith's parse jobs, which the accept ledger's reconciler queues again for
 * every transaction still open (at the next start at once: see the parser module). That is
 * what BullMQ on a Redis without persistence gives the fleet; here it saves PGlite the job's
 * insert, claim, completion and next-due look, four of a message's dozen statements
 * (docs/performance.md "The embedded column's profile").
 *
 * Otherwise it keeps the port's rules: idempotent job ids, delayed jobs, retries with the
 * catalog's exponential backoff, jobs failed for good kept with their reason until requeued.
 * Written here: a queue library would bring its own store, and the database queue beside it
 * already covers what must survive a restart.
 */
export class MemoryJobQueue implements JobQueue {
  /** Tells this process's workers that a job was added. */
  readonly enqueued = new EventEmitter();
  /** By job key, in the order they were added (a Map keeps it): the order they run in. */
  private readonly jobs = new Map<string, MemoryJob>();
  /** The ids of the last COMPLETED_KEPT completed jobs, oldest first. */
  private readonly completed = new Set<string>();
  private readonly schedules = new Map<JobName, NodeJS.Timeout>();
  private sequence = 0;
  /** Jobs waiting or running (failed ones aside): what the memory holds until they end. */
  private pending = 0;

  constructor() {
    this.enqueued.setMaxListeners(0);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId?: string; delayMs?: number } = {}): Promise<void> {
    assertJobPayload(name, payload);
    const key = options.jobId ?? `memory-${++this.sequence}`;
    if (this.jobs.has(key) || this.completed.has(key)) return;
    this.jobs.set(key, { key, name, payload, attempt: 1, dueAt: Date.now() + (options.delayMs ?? 0), state: "waiting", reason: null });
    this.pending += 1;
    this.enqueued.emit("job");
  }

  async requeue<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<void> {
    if (this.jobs.get(jobId)?.state === "failed") this.jobs.delete(jobId);
    this.completed.delete(jobId);
    await this.enqueue(name, payload, { jobId });
  }

  async schedule<N extends JobName>(name: N, payload: JobPayloads[N], everyMs: number): Promise<void> {
    assertJobPayload(name, payload);
    clearInterval(this.schedules.get(name));
    // Keyed by name, so a run that has not started yet is not queued twice; requeued, not
    // enqueued, so the completed run's remembered id does not hold back the next one.
    const timer = setInterval(() => void this.requeue(name, payload, `schedule:${name}`), everyMs);
    timer.unref();
    this.schedules.set(name, timer);
  }

  async depth(queue: string): Promise<number> {
    let waiting = 0;
    for (const job of this.jobs.values()) if (job.state === "waiting" && JOB_OPTIONS[job.name].queue === queue) waiting += 1;
    return waiting;
  }

  /** Jobs waiting or running now. */
  get size(): number {
    return this.pending;
  }

  /** The jobs failed for good, with their reasons (tests and diagnostics). */
  failed(): { id: string; reason: string | null }[] {
    return [...this.jobs.values()].filter((job) => job.state === "failed").map((job) => ({ id: job.key, reason: job.reason }));
  }

  async close(): Promise<void> {
    for (const timer of this.schedules.values()) clearInterval(timer);
    this.schedules.clear();
  }

  /**
   * Marks running and returns up to `limit` jobs of `names` that are due, oldest first, and,
   * when fewer than `limit` were due, the time until the next delayed one falls due (Infinity
   * when none waits, or when the worker is full: a finished job wakes it). The scan stops at
   * the `limit`-th job, so a backlog costs a worker a look past its running jobs, not the whole
   * queue, per job it starts.
   */
  take(names: ReadonlySet<JobName>, limit: number, now = Date.now()): { taken: MemoryJob[]; nextDueInMs: number } {
    const taken: MemoryJob[] = [];
    let nextDue = Number.POSITIVE_INFINITY;
    if (limit <= 0) return { taken, nextDueInMs: nextDue };
    for (const job of this.jobs.values()) {
      if (job.state !== "waiting" || !names.has(job.name)) continue;
      if (job.dueAt > now) {
        nextDue = Math.min(nextDue, job.dueAt);
        continue;
      }
      job.state = "running";
      taken.push(job);
      if (taken.length === limit) return { taken, nextDueInMs: Number.POSITIVE_INFINITY };
    }
    return { taken, nextDueInMs: nextDue - now };
  }

  /** Records how a taken job ended: gone when it succeeded, retried after its backoff, or failed for good. */
  settle(job: MemoryJob, error: unknown): void {
    if (error === undefined) {
      this.jobs.delete(job.key);
      this.pending -= 1;
      this.completed.add(job.key);
      if (this.completed.size > COMPLETED_KEPT) this.completed.delete(this.completed.values().next().value!);
      return;
    }
    const { attempts, backoffMs } = JOB_OPTIONS[job.name];
    job.reason = error instanceof Error ? error.message : String(error);
    if (error instanceof PermanentJobError || job.attempt >= attempts) {
      job.state = "failed";
      this.pending -= 1;
      return;
    }
    job.dueAt = Date.now() + backoffMs * 2 ** (job.attempt - 1);
    job.attempt += 1;
    job.state = "waiting";
  }
}

/**
 * Consumes the jobs `handlers` names from a memory queue, up to `concurrency` at a time: woken
 * by an enqueue, a finished job, or the next delayed job falling due. Wakes are coalesced into
 * one look per turn of the microtask queue, and never run a handler inside the caller of
 * `enqueue` (the SMTP edge, between its durable writes and its 250).
 */
export function startMemoryWorker(queue: MemoryJobQueue, handlers: JobHandlers, options: { concurrency: number; logger: Logger; closeGraceMs?: number }): JobWorker {
  const names = new Set(Object.keys(handlers) as JobName[]);
  const running = new Set<Promise<void>>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let woken = false;

  async function run(job: MemoryJob): Promise<void> {
    try {
      await (handlers[job.name] as (payload: unknown, attempt: number) => Promise<void>)(job.payload, job.attempt);
      queue.settle(job, undefined);
    } catch (error) {
      options.logger.warn({ err: error, job: job.name, job_id: job.key, attempt: job.attempt }, "job failed");
      queue.settle(job, error);
    }
  }

  function wake(): void {
    if (woken || closed) return;
    woken = true;
    queueMicrotask(look);
  }

  function look(): void {
    woken = false;
    if (closed || running.size >= options.concurrency) return;
    clearTimeout(timer);
    const { taken, nextDueInMs } = queue.take(names, options.concurrency - running.size);
    for (const job of taken) {
      const done: Promise<void> = run(job).finally(() => {
        running.delete(done);
        wake();
      });
      running.add(done);
    }
    if (running.size < options.concurrency && nextDueInMs !== Number.POSITIVE_INFINITY) {
      timer = setTimeout(wake, Math.max(nextDueInMs, 1));
      timer.unref();
    }
  }

  return wakeOnEnqueue(queue.enqueued, wake, async () => {
    closed = true;
    clearTimeout(timer);
    // What the grace cuts is repaired as after a crash (its ledger row stays open).
    await finishedWithin(running, options.closeGraceMs ?? WORKER_CLOSE_GRACE_MS);
  });
}
