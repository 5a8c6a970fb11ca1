import { uniqueRedisPrefix } from "@mailstop/testkit";
import { RedisRateLimits } from "./rate-limits";
import { bucket, suiteRedisConnections, takeMany } from "./rate-limits.fixture";

// What only the Redis buckets do: one bucket shared by instances, a rate changed mid-window, and
// Redis unreachable. The contract both adapters pass is rate-limits.contract.int.test.ts.

const connect = suiteRedisConnections();

describe("Redis rate limits", () => {
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
