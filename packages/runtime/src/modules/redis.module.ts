import { once } from "node:events";
import { BullJobQueue, RedisBus, createRedis } from "@mailstop/messaging";
import type { Redis } from "ioredis";
import type { RuntimeContext, ServiceModule } from "../module";

const CONNECT_TIMEOUT_MS = 5000;

/** Redis: the job queue (BullMQ) and the arrival bus (pub/sub), shared by the process's modules. */
export function redisModule(context: RuntimeContext): ServiceModule {
  const { redisUrl, redisPrefix } = context.config;
  // TODO(#5): the monolithic target uses in-process queue and bus when REDIS_URL is unset.
  if (redisUrl === null) throw new Error("REDIS_URL is not set: the job queue and arrival bus need Redis.");
  const command = createRedis(redisUrl, "command", context.logger);
  const blocking: Redis[] = [];
  const newBlocking = () => {
    const connection = createRedis(redisUrl, "blocking", context.logger);
    blocking.push(connection);
    return connection;
  };
  const queue = new BullJobQueue(command, redisPrefix, context.logger);
  const bus = new RedisBus(command, newBlocking, redisPrefix);
  context.redis = { command, newBlocking, queue, bus };
  return {
    name: "redis",
    async start() {
      if (command.status === "ready") return;
      const timeout = AbortSignal.timeout(CONNECT_TIMEOUT_MS);
      try {
        await once(command, "ready", { signal: timeout });
      } catch {
        throw new Error(`Redis at REDIS_URL did not answer within ${CONNECT_TIMEOUT_MS} ms.`);
      }
    },
    async stop() {
      await queue.close().catch(() => undefined);
      await bus.close();
      await Promise.all([command, ...blocking].map((connection) => connection.quit().catch(() => connection.disconnect())));
    },
    ready: async () => command.status === "ready",
  };
}
