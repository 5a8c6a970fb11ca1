import { deliverWebhookJob, startWebhookRelay } from "@mailstop/api";
import type { JobWorker } from "@mailstop/messaging";
import { parserJobs, startReconciler } from "@mailstop/parser";
import { webhookTargets } from "./webhook-targets";
import { defineModule } from "../module";

/** How often raw objects nothing knows are looked for (they are a day old before they go). */
const SWEEP_INTERVAL_MS = 3_600_000;

/**
 * The parser service: consumes parse, arrival and webhook jobs, and runs the reaper, the
 * accept ledger's reconciler, the orphan sweep and the webhook outbox's relay.
 */
export const parserModule = defineModule({
  name: "parser",
  needs: ["db", "blobs", "messaging", "secrets"],
  create({ db, blobs, messaging, secrets, config, logger }) {
    const deps = { db, blobs, queue: messaging.queue, bus: messaging.bus, config, logger };
    const targets = webhookTargets(config);
    const jobs = { ...parserJobs(deps), "deliver-webhook": deliverWebhookJob({ db, config, logger, secrets, targets }) };
    let worker: JobWorker | undefined;
    let reconciler: { stop(): Promise<void> } | undefined;
    let relay: { stop(): Promise<void> } | undefined;
    return {
      async start() {
        // Every parser declares the same schedule; the queue keeps one.
        await messaging.queue.schedule("reap", {}, config.reapIntervalSeconds * 1000);
        await messaging.queue.schedule("sweep-orphans", {}, SWEEP_INTERVAL_MS);
        worker = messaging.startWorker(jobs, { concurrency: config.parserConcurrency, lockDurationMs: config.jobLockMs });
        // A transaction is requeued between one and one and a half grace periods after its 250
        // (at least RECONCILE_MIN_AGE_S), whatever happened to Redis meanwhile.
        reconciler = startReconciler(deps);
        relay = startWebhookRelay(deps);
      },
      async stop() {
        await relay?.stop();
        await reconciler?.stop();
        await worker?.close();
      },
      ready: async () => worker !== undefined,
    };
  },
});
