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

// Atomic: drop expired leases, then take one if the allowance has room.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

let sequence = 0;

export class RedisWaitSlots implements WaitSlots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly instance: string,
  ) {}

  async acquire(projectId: string, limit: number): Promise<WaitSlot | null> {
    const key = `${this.prefix}:wait-slots:${projectId}`;
    const member = `${this.instance}:${++sequence}`;
    const now = Date.now();
    const taken = await this.redis.eval(ACQUIRE, 1, key, now, now + SLOT_LEASE.ttlMs, limit, member, SLOT_LEASE.ttlMs * 2);
    if (taken !== 1) return null;
    const renew = setInterval(() => {
      void this.redis.zadd(key, "XX", Date.now() + SLOT_LEASE.ttlMs, member).catch(() => undefined);
    }, SLOT_LEASE.renewEveryMs);
    renew.unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.redis.zrem(key, member).catch(() => undefined);
      },
    };
  }
}
