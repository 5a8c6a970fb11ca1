import type { JobWorker } from "@mailstop/messaging";
import { parserJobs, startReconciler } from "@mailstop/parser";
import { defineModule } from "../module";

/** How often raw objects nothing knows are looked for (they are a day old before they go). */
const SWEEP_INTERVAL_MS = 3_600_000;

/** The parser service: consumes parse and arrival jobs, and runs the reaper, the accept ledger's reconciler and the orphan sweep. */
export const parserModule = defineModule({
  name: "parser",
  needs: ["db", "blobs", "messaging"],
  create({ db, blobs, messaging, config, logger }) {
    const deps = { db, blobs, queue: messaging.queue, bus: messaging.bus, config, logger };
    const jobs = parserJobs(deps);
    let worker: JobWorker | undefined;
    let reconciler: { stop(): Promise<void> } | undefined;
    return {
      async start() {
        // Every parser declares the same schedule; the queue keeps one.
        await messaging.queue.schedule("reap", {}, config.reapIntervalSeconds * 1000);
        await messaging.queue.schedule("sweep-orphans", {}, SWEEP_INTERVAL_MS);
        worker = messaging.startWorker(jobs, { concurrency: config.parserConcurrency, lockDurationMs: config.jobLockMs });
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
  },
});
