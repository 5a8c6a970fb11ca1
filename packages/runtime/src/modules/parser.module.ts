import type { JobWorker } from "@mailstop/messaging";
import { parserJobs, startReconciler } from "@mailstop/parser";
import { type RuntimeContext, type ServiceModule, requireBlobs, requireDb, requireMessaging } from "../module";

/** How often raw objects nothing knows are looked for (they are a day old before they go). */
const SWEEP_INTERVAL_MS = 3_600_000;

/** The parser service: consumes parse and arrival jobs, and runs the reaper, the accept ledger's reconciler and the orphan sweep. */
export function parserModule(context: RuntimeContext): ServiceModule {
  const messaging = requireMessaging(context);
  const deps = {
    db: requireDb(context),
    blobs: requireBlobs(context),
    queue: messaging.queue,
    bus: messaging.bus,
    config: context.config,
    logger: context.logger,
  };
  const jobs = parserJobs(deps);
  let worker: JobWorker | undefined;
  let reconciler: { stop(): Promise<void> } | undefined;
  return {
    name: "parser",
    async start() {
      // Every parser declares the same schedule; the queue keeps one.
      await messaging.queue.schedule("reap", {}, context.config.reapIntervalSeconds * 1000);
      await messaging.queue.schedule("sweep-orphans", {}, SWEEP_INTERVAL_MS);
      worker = messaging.startWorker(jobs, { concurrency: context.config.parserConcurrency, lockDurationMs: context.config.jobLockMs });
      // A transaction is requeued between one and one and a half grace periods after its 250
      // (at least RECONCILE_MIN_AGE_S), whatever happened to Redis meanwhile.
      reconciler = startReconciler(deps);
    },
    async stop() {
      await reconciler?.stop();
      await worker?.close();
    },
    ready: async () => worker !== undefined,
  };
}
