import { startBullWorker, type JobWorker } from "@mailstop/messaging";
import { parserJobs } from "@mailstop/parser";
import { type RuntimeContext, type ServiceModule, requireBlobs, requireDb, requireRedis } from "../module";

/** Parse jobs in flight per parser process: the work is mostly waiting on the store and database. */
export const PARSER_CONCURRENCY = 8;

/** The parser service: consumes parse-message and publish-arrival jobs. */
export function parserModule(context: RuntimeContext): ServiceModule {
  const redis = requireRedis(context);
  const jobs = parserJobs({
    db: requireDb(context),
    blobs: requireBlobs(context),
    queue: redis.queue,
    bus: redis.bus,
    config: context.config,
    logger: context.logger,
  });
  let worker: JobWorker | undefined;
  return {
    name: "parser",
    async start() {
      // Every parser declares the same schedule; BullMQ keeps one.
      await redis.queue.schedule("reap", {}, context.config.reapIntervalSeconds * 1000);
      worker = startBullWorker(redis.newBlocking(), context.config.redisPrefix, jobs, {
        concurrency: PARSER_CONCURRENCY,
        logger: context.logger,
        lockDurationMs: context.config.jobLockMs,
      });
    },
    async stop() {
      await worker?.close();
    },
    ready: async () => worker !== undefined,
  };
}
