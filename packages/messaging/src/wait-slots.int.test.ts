import { once } from "node:events";
import { createLogger } from "@mailstop/logging";
import { eventually, runRedisUrl, uniqueRedisPrefix } from "@mailstop/testkit";
import type { Redis } from "ioredis";
import { createRedis } from "./redis-connection";
import { type LeaseTimings, RedisWaitSlots } from "./wait-slots";

// How the Redis leases behind max_concurrent_waits live and die, with timings short enough to
// watch: one renewal for all of a process's leases, releases in batches, and a lease that
// outlasts its key's first expiry while renewed but lapses once its process is gone.

const logger = createLogger({ level: "silent" });
const connections: Redis[] = [];
afterAll(async () => {
  for (const connection of connections) await connection.quit().catch(() => connection.disconnect());
});

async function readyRedis(): Promise<Redis> {
  const connection = createRedis(runRedisUrl(), "command", logger);
  connections.push(connection);
  if (connection.status !== "ready") await once(connection, "ready");
  return connection;
}

const FAST: LeaseTimings = { ttlMs: 1_500, renewEveryMs: 250 };

/** Every command Redis runs on keys under `prefix`, as its arguments (MONITOR). */
async function watchCommands(prefix: string): Promise<{ seen: string[][]; stop(): Promise<void> }> {
  const monitor = await (await readyRedis()).monitor();
  const seen: string[][] = [];
  monitor.on("monitor", (_time: string, args: string[]) => {
    if (args.some((arg) => arg.startsWith(prefix))) seen.push(args.map(String));
  });
  return { seen, stop: async () => void monitor.disconnect() };
}

describe("RedisWaitSlots", () => {
  it("renews every lease it holds with one ZADD per project, and releases a turn's leases with one ZREM per project", async () => {
    const prefix = uniqueRedisPrefix();
    const slots = new RedisWaitSlots(await readyRedis(), prefix, "renewer", FAST);
    const watch = await watchCommands(prefix);
    const held = [];
    for (let i = 0; i < 20; i++) held.push((await slots.acquire(i % 2 === 0 ? "prj_even" : "prj_odd", 100))!);
    expect(held.every((slot) => slot !== null)).toBe(true);

    // A renewal once all twenty are held: one ZADD per project, naming its ten members. (One
    // that came while the acquires were still going on, on a slow machine, names fewer.)
    const renewals = await eventually(
      async () => {
        const whole = watch.seen.filter((args) => args[0]?.toLowerCase() === "zadd" && args[2] === "XX" && args.length === 3 + 2 * 10);
        return new Set(whole.map((args) => args[1])).size === 2 ? whole : null;
      },
      { what: "a renewal naming each project's ten leases" },
    );
    expect([...new Set(renewals.map((args) => args[1]))].sort()).toEqual([`${prefix}:wait-slots:prj_even`, `${prefix}:wait-slots:prj_odd`]);

    await Promise.all(held.map((slot) => slot.release()));
    const removals = await eventually(
      async () => {
        const zrems = watch.seen.filter(([command]) => command?.toLowerCase() === "zrem");
        return zrems.length >= 2 ? zrems : null;
      },
      { what: "the released leases' removal" },
    );
    expect(removals.map((args) => args.length)).toEqual([2 + 10, 2 + 10]);
    const redis = await readyRedis();
    expect(await redis.zcard(`${prefix}:wait-slots:prj_even`)).toBe(0);
    expect(await redis.zcard(`${prefix}:wait-slots:prj_odd`)).toBe(0);
    await watch.stop();
  });

  it("keeps a renewed lease (and the allowance it takes) past its key's first expiry", async () => {
    const prefix = uniqueRedisPrefix();
    const redis = await readyRedis();
    const slots = new RedisWaitSlots(redis, prefix, "long-wait", FAST);
    const key = `${prefix}:wait-slots:prj_long`;
    const acquiredAt = Date.now();
    const slot = await slots.acquire("prj_long", 1);
    expect(slot).not.toBeNull();
    // The key was set to expire 2 × ttl after the acquire; a renewal after that moment shows
    // the lease (and its key) survived it.
    await eventually(
      async () => {
        const [, score] = await redis.zrange(key, 0, 0, "WITHSCORES");
        if (score === undefined) throw new Error("the held lease is gone");
        return Number(score) > acquiredAt + 3 * FAST.ttlMs ? true : null;
      },
      { timeoutMs: 10 * FAST.ttlMs, what: "a renewal past the key's first expiry" },
    );
    expect(await slots.acquire("prj_long", 1)).toBeNull();
    await slot!.release();
    expect(await slots.acquire("prj_long", 1)).not.toBeNull();
  });

  it("lets the leases of an instance that stopped renewing lapse, so another instance gets the allowance", async () => {
    const prefix = uniqueRedisPrefix();
    const doomedConnection = await readyRedis();
    const doomed = new RedisWaitSlots(doomedConnection, prefix, "doomed", FAST);
    const survivor = new RedisWaitSlots(await readyRedis(), prefix, "survivor", FAST);
    expect(await doomed.acquire("prj_crash", 1)).not.toBeNull();
    expect(await survivor.acquire("prj_crash", 1)).toBeNull();

    // The instance is gone: its connection with it, so nothing renews its lease any more.
    doomedConnection.disconnect();
    const slot = await eventually(() => survivor.acquire("prj_crash", 1), { timeoutMs: 10 * FAST.ttlMs, what: "the lapsed lease's allowance" });
    await slot.release();
  });
});
