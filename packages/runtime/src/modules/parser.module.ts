import type { JobWorker } from "@mailstop/messaging";
import { parserJobs } from "@mailstop/parser";
import { type RuntimeContext, type ServiceModule, requireBlobs, requireDb, requireMessaging } from "../module";

/** The parser service: consumes parse-message, publish-arrival and reap jobs. */
export function parserModule(context: RuntimeContext): ServiceModule {
  const messaging = requireMessaging(context);
  const jobs = parserJobs({
    db: requireDb(context),
    blobs: requireBlobs(context),
    queue: messaging.queue,
    bus: messaging.bus,
    config: context.config,
    logger: context.logger,
  });
  let worker: JobWorker | undefined;
  return {
    name: "parser",
    async start() {
      // Every parser declares the same schedule; the queue keeps one.
      await messaging.queue.schedule("reap", {}, context.config.reapIntervalSeconds * 1000);
      worker = messaging.startWorker(jobs, { concurrency: context.config.parserConcurrency, lockDurationMs: context.config.jobLockMs });
    },
    async stop() {
      await worker?.close();
    },
    ready: async () => worker !== undefined,
  };
}
