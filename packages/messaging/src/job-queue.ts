import type { JobName, JobPayloads } from "./catalog";

/** The job queue port: BullMQ on Redis, or the database's `jobs` table on the embedded stand-ins (docs/architecture.md "Ports and adapters"). */
export interface JobQueue {
  /**
   * Enqueues a job; resolves only once the queue has it durably, except in MemoryJobQueue, whose
   * jobs (the embedded monolith's parse jobs) the accept ledger repairs after a crash. A `jobId`
   * makes the enqueue idempotent: a second job with the same id is not added while the first exists.
   */
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options?: { jobId?: string; delayMs?: number }): Promise<void>;
  /**
   * Makes sure a job with id `jobId` is pending: nothing when one is waiting, delayed or
   * running; otherwise (none, or one that completed or failed for good) a fresh job with its
   * full attempts. The accept ledger's reconciler repairs lost and failed parse jobs with it.
   */
  requeue<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<void>;
  /** Runs job `name` every `everyMs`; idempotent, so every instance may declare the same schedule. */
  schedule<N extends JobName>(name: N, payload: JobPayloads[N], everyMs: number): Promise<void>;
  /** Jobs of queue `queue` (JOB_OPTIONS) waiting to run, due or delayed; for the metrics. */
  depth(queue: string): Promise<number>;
  close(): Promise<void>;
}

export type JobHandlers = { [N in JobName]?: (payload: JobPayloads[N], attempt: number) => Promise<void> };

/** A running consumer of jobs. */
export interface JobWorker {
  close(): Promise<void>;
}

/** A failure no retry can fix: the job is failed for good (and kept visible), not retried. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}
