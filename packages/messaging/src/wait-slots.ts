import type { Redis } from "ioredis";

/**
 * The concurrent-wait allowance of a project, counted across every waiter instance. Slots are
 * leases, not counters: a wait renews its lease while it runs, and the slot of a wait whose
 * instance died comes back when the lease expires, without anyone decrementing anything.
 */
export interface WaitSlots {
  /** Takes a slot, or returns null when `limit` waits already hold one. */
  acquire(projectId: string, limit: number): Promise<WaitSlot | null>;
}

export interface WaitSlot {
  release(): Promise<void>;
}

/** How long a lease lasts without renewal, and how often a running wait renews it. */
export const SLOT_LEASE = { ttlMs: 15_000, renewEveryMs: 5_000 } as const;

export interface LeaseTimings {
  ttlMs: number;
  renewEveryMs: number;
}

// Atomic: drop expired leases, then take one if the allowance has room.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

let sequence = 0;

/**
 * Leases in a sorted set per project (member: instance and wait, score: expiry). One process
 * holds thousands of waits, so its leases are kept together: one timer renews them all in one
 * round trip (a ZADD per project naming every member), and the leases released in one turn
 * of the event loop go in one ZREM per project. A wait costs a Set entry, not a timer and a
 * Redis command of its own; 10,000 waits woken together cost a few round trips, not 10,000.
 */
export class RedisWaitSlots implements WaitSlots {
  /** Held leases by sorted-set key. */
  private readonly held = new Map<string, Set<string>>();
  private renewal: NodeJS.Timeout | undefined;
  /** Leases to remove in the next batch, by key, and the batch's completion. */
  private releasing = new Map<string, string[]>();
  private releaseBatch: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly instance: string,
    private readonly lease: LeaseTimings = SLOT_LEASE,
  ) {}

  async acquire(projectId: string, limit: number): Promise<WaitSlot | null> {
    const key = `${this.prefix}:wait-slots:${projectId}`;
    const member = `${this.instance}:${++sequence}`;
    const now = Date.now();
    const taken = await this.redis.eval(ACQUIRE, 1, key, now, now + this.lease.ttlMs, limit, member, this.lease.ttlMs * 2);
    if (taken !== 1) return null;
    this.hold(key, member);
    return { release: () => this.release(key, member) };
  }

  private hold(key: string, member: string): void {
    let members = this.held.get(key);
    if (members === undefined) {
      members = new Set();
      this.held.set(key, members);
    }
    members.add(member);
    if (this.renewal === undefined) {
      this.renewal = setInterval(() => this.renewAll(), this.lease.renewEveryMs);
      // Renewal must not keep a process alive; a process that exits lets its leases lapse.
      this.renewal.unref();
    }
  }

  /** Stops renewing the lease and queues its removal; a lease already released is left alone. */
  private async release(key: string, member: string): Promise<void> {
    const members = this.held.get(key);
    if (!members?.delete(member)) return;
    if (members.size === 0) this.held.delete(key);
    if (this.held.size === 0) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
    let batch = this.releasing.get(key);
    if (batch === undefined) {
      batch = [];
      this.releasing.set(key, batch);
    }
    batch.push(member);
    // Waits woken by one arrival end in the same turn of the event loop: collect them first.
    this.releaseBatch ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.removeReleased());
    return this.releaseBatch;
  }

  private async removeReleased(): Promise<void> {
    const batch = this.releasing;
    this.releasing = new Map();
    this.releaseBatch = null;
    const pipeline = this.redis.pipeline();
    for (const [key, members] of batch) pipeline.zrem(key, ...members);
    // A lease that failed to go lapses on its own.
    await pipeline.exec().catch(() => undefined);
  }

  /**
   * Every held lease pushed to a new expiry in one round trip. XX: a lease that already lapsed
   * (this process stalled past its ttl and another instance swept it) is not taken back, as
   * the allowance may have been given to someone else. The key's own expiry moves too: it is
   * there so that a project nobody waits on leaves nothing behind, and set only on acquire it
   * dropped the leases of waits longer than twice the ttl with the key.
   */
  private renewAll(): void {
    const expiresAt = Date.now() + this.lease.ttlMs;
    const pipeline = this.redis.pipeline();
    for (const [key, members] of this.held) {
      const scored: (string | number)[] = [];
      for (const member of members) scored.push(expiresAt, member);
      pipeline.zadd(key, "XX", ...scored);
      pipeline.pexpire(key, this.lease.ttlMs * 2);
    }
    void pipeline.exec().catch(() => undefined);
  }
}
