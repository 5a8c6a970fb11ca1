import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { createLogger } from "@mailstop/logging";
import { describeWithEngines, eventually, runRedisUrl, testWorld, uniqueRedisPrefix } from "@mailstop/testkit";
import type { Redis } from "ioredis";
import { InProcessRateLimits, RATE_WINDOW_SECONDS, type RateLimits, RedisRateLimits } from "./rate-limits";
import { createRedis } from "./redis-connection";

// The per-key request buckets, one contract for Redis (the fleet) and the in-process stand-in.

const connections: Redis[] = [];
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
});

async function connect(): Promise<Redis> {
  const connection = createRedis(runRedisUrl(), "command", createLogger({ level: "silent" }));
  connections.push(connection);
  if (connection.status !== "ready") await once(connection, "ready");
  return connection;
}

const ADAPTERS: [string, () => Promise<RateLimits>][] = [
  ...(testWorld() === "engines" ? [["Redis", async () => new RedisRateLimits(await connect(), uniqueRedisPrefix())] as [string, () => Promise<RateLimits>]] : []),
  ["in-process", async () => new InProcessRateLimits()],
];

const bucket = () => `key_${randomBytes(6).toString("hex")}:read`;

/** Takes `count` tokens one after another and returns what each decided. */
async function takeMany(limits: RateLimits, name: string, perSecond: number, count: number) {
  const decisions = [];
  for (let i = 0; i < count; i++) decisions.push(await limits.take(name, perSecond));
  return decisions;
}

describe.each(ADAPTERS)("RateLimits contract: %s", (_name, create) => {
  it("holds twice the rate, counting down, then refuses until the window ends", async () => {
    const limits = await create();
    const name = bucket();
    const decisions = await takeMany(limits, name, 3, 7);
    expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
      [true, 6, 5],
      [true, 6, 4],
      [true, 6, 3],
      [true, 6, 2],
      [true, 6, 1],
      [true, 6, 0],
      [false, 6, 0],
    ]);
    for (const decision of decisions) {
      expect(decision.resetMs).toBeGreaterThan(0);
      expect(decision.resetMs).toBeLessThanOrEqual(RATE_WINDOW_SECONDS * 1000);
    }
  });

  it("keeps each bucket on its own", async () => {
    const limits = await create();
    const spent = bucket();
    await takeMany(limits, spent, 1, 2);
    expect((await limits.take(spent, 1)).allowed).toBe(false);
    expect(await limits.take(bucket(), 1)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("is full again once its window has passed", async () => {
    const limits = await create();
    const name = bucket();
    await takeMany(limits, name, 1, 2);
    const refused = await limits.take(name, 1);
    expect(refused.allowed).toBe(false);
    const started = Date.now();
    const refilled = await eventually(async () => {
      const decision = await limits.take(name, 1);
      return decision.allowed ? decision : null;
    }, { what: "a token after the window", timeoutMs: 10_000 });
    expect(refilled.remaining).toBe(1);
    // Not before the window the refusal announced (a little slack for timer rounding).
    expect(Date.now() - started).toBeGreaterThanOrEqual(refused.resetMs - 50);
  });
});

describeWithEngines("Redis rate limits", "the embedded world has no Redis", () => {
  it("share one bucket between instances on the same prefix, each with its own connection", async () => {
    const prefix = uniqueRedisPrefix();
    const first = new RedisRateLimits(await connect(), prefix);
    const second = new RedisRateLimits(await connect(), prefix);
    const name = bucket();
    const allowed = [];
    for (let i = 0; i < 10; i++) allowed.push((await (i % 2 === 0 ? first : second).take(name, 4)).allowed);
    expect(allowed).toEqual([true, true, true, true, true, true, true, true, false, false]);
  });

  it("apply a new rate to the window in progress: a smaller limit refuses what the larger one counted", async () => {
    const limits = new RedisRateLimits(await connect(), uniqueRedisPrefix());
    const name = bucket();
    await takeMany(limits, name, 5, 4);
    expect(await limits.take(name, 2)).toMatchObject({ allowed: false, limit: 4, remaining: 0 });
  });

  it("count in memory while Redis is unreachable, instead of failing the request", async () => {
    const connection = await connect();
    const limits = new RedisRateLimits(connection, uniqueRedisPrefix());
    connection.disconnect();
    const name = bucket();
    const decisions = await takeMany(limits, name, 1, 3);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
  });
});
