import { runPeriodically } from "@mailstop/core";
import { type Db, dueDeliveries } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { JobQueue } from "@mailstop/messaging";

/** How often each parser looks for due deliveries: the most a webhook waits after its event commits. */
export const RELAY_INTERVAL_MS = 1_000;
const BATCH = 200;

/**
 * The outbox relay: every due, unclaimed delivery (a new event, a retry whose time came, one
 * whose worker died mid-attempt) gets its deliver-webhook job. `requeue` adds nothing while the
 * job waits or runs, so every parser may relay the same rows; the worker's claim decides who
 * attempts. The events were committed with what raised them, so a parser killed at any point
 * loses none: the next relay finds them.
 */
export async function relayDueDeliveries(deps: { db: Db; queue: JobQueue }): Promise<number> {
  const due = await dueDeliveries(deps.db, BATCH);
  for (const delivery of due) {
    await deps.queue.requeue("deliver-webhook", { event_id: delivery.eventId, webhook_id: delivery.webhookId }, `webhook-${delivery.eventId}-${delivery.webhookId}`);
  }
  return due.length;
}

export function startWebhookRelay(deps: { db: Db; queue: JobQueue; logger: Logger }): { stop(): Promise<void> } {
  return runPeriodically(
    RELAY_INTERVAL_MS,
    () => relayDueDeliveries(deps),
    (error) => deps.logger.warn({ err: error }, "webhook relay run failed; the next one tries again"),
  );
}
