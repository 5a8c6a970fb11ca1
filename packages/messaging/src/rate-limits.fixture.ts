import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { createLogger } from "@mailstop/logging";
import { runRedisUrl } from "@mailstop/testkit";
import type { Redis } from "ioredis";
import type { RateLimits } from "./rate-limits";
import { createRedis } from "./redis-connection";

/** Opens ready connections to the run's Redis for the enclosing suite, closed after it. */
export function suiteRedisConnections(): () => Promise<Redis> {
  const connections: Redis[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  });
  return async () => {
    const connection = createRedis(runRedisUrl(), "command", createLogger({ level: "silent" }));
    connections.push(connection);
    if (connection.status !== "ready") await once(connection, "ready");
    return connection;
  };
}

/** A bucket name no other test uses. */
export const bucket = () => `key_${randomBytes(6).toString("hex")}:read`;

/** Takes `count` tokens one after another and returns what each decided. */
export async function takeMany(limits: RateLimits, name: string, perSecond: number, count: number) {
  const decisions = [];
  for (let i = 0; i < count; i++) decisions.push(await limits.take(name, perSecond));
  return decisions;
}
