import type { DueLoop } from "@mailstop/core";
import { JOB_OPTIONS, type JobHandlers, type JobName, type JobWorker, PermanentJobError } from "@mailstop/messaging";
import type { Metrics } from "@mailstop/metrics";
import { webhookTargets } from "./webhook-targets";
import { defineModule } from "../module";

/**
 * `handlers`, each counting its runs in the metrics by outcome: `completed`, `retried` (it
 * threw and has attempts left) or `failed` (a permanent error, or its last attempt).
 */
function countedJobs(handlers: JobHandlers, metrics: Metrics): JobHandlers {
  const counted: Record<string, (payload: never, attempt: number) => Promise<void>> = {};
  for (const [name, handle] of Object.entries(handlers) as [JobName, (payload: never, attempt: number) => Promise<void>][]) {
    const { attempts } = JOB_OPTIONS[name];
    counted[name] = async (payload, attempt) => {
      try {
        await handle(payload, attempt);
      } catch (error) {
        metrics.job(name, error instanceof PermanentJobError || attempt >= attempts ? "failed" : "retried");
        throw error;
      }
      metrics.job(name, "completed");
    };
  }
  return counted as JobHandlers;
}

/**
 * The parser service: consumes parse, arrival and webhook jobs, and runs the reaper, the
 * accept ledger's reconciler, the orphan sweep and the webhook outbox's relay.
 */
export const parserModule = defineModule({
  name: "parser",
  needs: ["db", "blobs", "messaging", "secrets"],
  create({ db, blobs, messaging, secrets, config, logger, metrics }) {
    // Required here, not imported: a target loads the services it runs only (see targets.ts).
    const { deliverWebhookJob, startWebhookRelay } = require("@mailstop/api") as typeof import("@mailstop/api");
    const { parserJobs, reconcileOrphans, startReconciler } = require("@mailstop/parser") as typeof import("@mailstop/parser");
    const startedAt = new Date();
    let relay: DueLoop | undefined;
    // The relay starts last (below); what raises deliveries before then is found by its first run.
    const webhookRelay = { kick: () => relay?.kick() };
    const deps = { db, blobs, queue: messaging.queue, bus: messaging.bus, config, logger, metrics, webhookRelay };
    const targets = webhookTargets(config);
    const jobs = countedJobs({ ...parserJobs(deps), "deliver-webhook": deliverWebhookJob({ db, config, logger, secrets, targets, metrics, relay: webhookRelay }) }, metrics);
    let worker: JobWorker | undefined;
    let reconciler: { stop(): Promise<void> } | undefined;
    return {
      async start() {
        // The process that consumes the queues reports their depth.
        metrics.readQueueDepthFrom((queue) => messaging.queue.depth(queue));
        // Every parser declares the same schedule; the queue keeps one.
        await messaging.queue.schedule("reap", {}, config.reapIntervalSeconds * 1000);
        await messaging.queue.schedule("sweep-orphans", {}, config.orphanSweepIntervalSeconds * 1000);
        worker = messaging.startWorker(jobs, { concurrency: config.parserConcurrency, lockDurationMs: config.jobLockMs });
        // Parse jobs in memory died with the last process: what it accepted and left open is
        // queued again now, before the SMTP edge (which starts after this module) takes new mail.
        if (messaging.parseJobsInMemory) await reconcileOrphans(deps, startedAt);
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
