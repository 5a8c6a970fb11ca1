import { once } from "node:events";
import { createLogger } from "@mailstop/logging";
import { runRedisUrl, testWorld, uniqueRedisPrefix } from "@mailstop/testkit";
import type { Redis } from "ioredis";
import { GREYLIST, type Greylist, RedisGreylist } from "./greylist";
import { InProcessGreylist } from "./in-process";
import { createRedis } from "./redis-connection";

// The sim.greylist memory, one contract for Redis (the fleet) and the in-process stand-in.

const connections: Redis[] = [];
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
});

async function redisGreylist(): Promise<Greylist> {
  const connection = createRedis(runRedisUrl(), "command", createLogger({ level: "silent" }));
  connections.push(connection);
  if (connection.status !== "ready") await once(connection, "ready");
  return new RedisGreylist(connection, uniqueRedisPrefix());
}

const ADAPTERS: [string, () => Promise<Greylist>][] = [
  ...(testWorld() === "engines" ? [["Redis", redisGreylist] as [string, () => Promise<Greylist>]] : []),
  ["in-process", async () => new InProcessGreylist()],
];

describe.each(ADAPTERS)("Greylist contract: %s", (_name, create) => {
  it("refuses a pair's first attempt and retries within a second, then accepts", async () => {
    const greylist = await create();
    const t0 = Date.now();
    expect(await greylist.refuses("App@Example.com", "acme.sim.greylist@mailstop.test", t0)).toBe(true);
    expect(await greylist.refuses("app@example.com", "ACME.sim.greylist@mailstop.test", t0 + GREYLIST.retryAfterMs - 1)).toBe(true);
    expect(await greylist.refuses("app@example.com", "acme.sim.greylist@mailstop.test", t0 + GREYLIST.retryAfterMs)).toBe(false);
    expect(await greylist.refuses("app@example.com", "acme.sim.greylist@mailstop.test", t0 + 60_000)).toBe(false);
  });

  it("remembers each sender and recipient pair on its own", async () => {
    const greylist = await create();
    const t0 = Date.now();
    expect(await greylist.refuses("a@example.com", "acme.sim.greylist@mailstop.test", t0)).toBe(true);
    expect(await greylist.refuses("b@example.com", "acme.sim.greylist@mailstop.test", t0 + 5000)).toBe(true);
    expect(await greylist.refuses("a@example.com", "acme.other.sim.greylist@mailstop.test", t0 + 5000)).toBe(true);
  });
});

describe("in-process greylist memory", () => {
  it("forgets a pair after four hours, greylisting it again", async () => {
    const greylist = new InProcessGreylist();
    const t0 = Date.now();
    expect(await greylist.refuses("a@example.com", "x@mailstop.test", t0)).toBe(true);
    expect(await greylist.refuses("a@example.com", "x@mailstop.test", t0 + 2000)).toBe(false);
    expect(await greylist.refuses("a@example.com", "x@mailstop.test", t0 + GREYLIST.rememberMs + 1)).toBe(true);
  });
});
