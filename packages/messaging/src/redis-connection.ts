import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "@mailstop/logging";

/**
 * A Redis connection. `role` picks the failure behaviour: a `command` connection fails fast
 * while Redis is unreachable (the SMTP edge must answer 451 at once, not hang), a `blocking`
 * one (BullMQ workers, subscribers) keeps retrying until Redis is back.
 */
export function createRedis(url: string, role: "command" | "blocking", logger: Logger): Redis {
  const options: RedisOptions =
    role === "command"
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  const redis = new Redis(url, { ...options, lazyConnect: false });
  let reported = false;
  // Without a listener ioredis would crash the process on a lost connection; it reconnects.
  redis.on("error", (error: Error) => {
    if (!reported) logger.warn({ err: error, role }, "redis connection error; reconnecting");
    reported = true;
  });
  redis.on("ready", () => {
    reported = false;
  });
  return redis;
}
