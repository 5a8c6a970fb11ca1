import { hostname } from "node:os";
import { waiterHttpContributions } from "@mailstop/api";
import { RedisWaitSlots } from "@mailstop/messaging";
import { type RuntimeContext, type ServiceModule, requireDb, requireRedis } from "../module";

/** The waiter service: blocking waits and event streams on the HTTP listener, fed by the arrival bus. */
export function waiterModule(context: RuntimeContext): ServiceModule {
  const redis = requireRedis(context);
  const shutdown = new AbortController();
  context.http.push(
    ...waiterHttpContributions({
      db: requireDb(context),
      config: context.config,
      logger: context.logger,
      blobs: context.blobs ?? null,
      bus: redis.bus,
      slots: new RedisWaitSlots(redis.command, context.config.redisPrefix, `${hostname()}:${process.pid}`),
      shutdown: shutdown.signal,
    }),
  );
  return {
    name: "waiter",
    start: async () => undefined,
    drain: async () => shutdown.abort(),
    stop: async () => undefined,
    ready: async () => true,
  };
}
