import { eventually, testWorld, uniqueRedisPrefix } from "@mailstop/testkit";
import { InProcessRateLimits, RATE_WINDOW_SECONDS, type RateLimits, RedisRateLimits } from "./rate-limits";
import { bucket, suiteRedisConnections, takeMany } from "./rate-limits.fixture";

// The per-key request buckets, one contract for Redis (the fleet) and the in-process stand-in;
// what only Redis does (buckets shared by instances, Redis unreachable) is in
// rate-limits.engines.int.test.ts.

const connect = suiteRedisConnections();

const ADAPTERS: [string, () => Promise<RateLimits>][] = [
  ...(testWorld() === "engines" ? [["Redis", async () => new RedisRateLimits(await connect(), uniqueRedisPrefix())] as [string, () => Promise<RateLimits>]] : []),
  ["in-process", async () => new InProcessRateLimits()],
];

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
    // The clock starts before the refusal: its window counts from the take, which a loaded
    // machine may answer tens of milliseconds later.
    const started = Date.now();
    const refused = await limits.take(name, 1);
    expect(refused.allowed).toBe(false);
    const refilled = await eventually(async () => {
      const decision = await limits.take(name, 1);
      return decision.allowed ? decision : null;
    }, { what: "a token after the window", timeoutMs: 10_000 });
    expect(refilled.remaining).toBe(1);
    // Not before the window the refusal announced (a little slack for timer rounding).
    expect(Date.now() - started).toBeGreaterThanOrEqual(refused.resetMs - 50);
  });
});
