import type { JobName, JobPayloads } from "./catalog";
import type { JobQueue } from "./job-queue";

/**
 * One JobQueue over two: the jobs named in `names` go to `volatile` while it holds fewer than
 * `volatileLimit`, every other job (and those, past the limit) to `durable`. The embedded
 * monolith keeps its parse jobs in memory (MemoryJobQueue: the accept ledger repairs what a
 * crash loses) and the rest (webhook deliveries, delayed arrivals, schedules) in its database,
 * where nothing else would repair them; a parse backlog past the limit (a parse job carries a
 * small message's raw bytes, up to 64 KiB) waits on disk, not in the heap. A job with one id
 * may then be in both; the parse is idempotent, so its second run stores nothing.
 */
export class SplitJobQueue implements JobQueue {
  constructor(
    private readonly volatile: JobQueue & { readonly size: number },
    private readonly names: ReadonlySet<JobName>,
    private readonly durable: JobQueue,
    private readonly volatileLimit: number,
  ) {}

  private of(name: JobName): JobQueue {
    return this.names.has(name) && this.volatile.size < this.volatileLimit ? this.volatile : this.durable;
  }

  enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options?: { jobId?: string; delayMs?: number }): Promise<void> {
    return this.of(name).enqueue(name, payload, options);
  }

  requeue<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<void> {
    return this.of(name).requeue(name, payload, jobId);
  }

  schedule<N extends JobName>(name: N, payload: JobPayloads[N], everyMs: number): Promise<void> {
    return this.of(name).schedule(name, payload, everyMs);
  }

  async depth(queue: string): Promise<number> {
    const [volatile, durable] = await Promise.all([this.volatile.depth(queue), this.durable.depth(queue)]);
    return volatile + durable;
  }

  async close(): Promise<void> {
    await Promise.all([this.volatile.close(), this.durable.close()]);
  }
}
