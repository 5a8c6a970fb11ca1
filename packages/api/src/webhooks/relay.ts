import { type DueLoop, runWhenDue } from "@mailstop/core";
import { type Db, type RaisedDelivery, dueDeliveries, msUntilNextDelivery } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { JobQueue } from "@mailstop/messaging";

/**
 * The most a due delivery waits for the relay when nothing told it: a raiser that died between
 * its commit and its dispatch, a job queue that lost a job. Everything else wakes it at once
 * (a kick) or at the time it is due.
 */
export const RELAY_BACKSTOP_MS = 60_000;
/** After a failed run (the database or the queue down), the next one. */
const RELAY_RETRY_MS = 1_000;
/**
 * After a run that queued deliveries, the next one at the latest: until a worker claims them
 * they are due and unclaimed, which the next-due time leaves out, and a job lost meanwhile is
 * queued again this soon rather than at the backstop.
 */
const RELAY_RECHECK_MS = 5_000;
const BATCH = 200;

/**
 * Queues the deliver-webhook job of each delivery. `requeue` adds nothing while the job waits
 * or runs, so a delivery dispatched twice (by its raiser and by a relay, or by two parsers'
 * relays) is attempted once: the worker's claim decides who attempts.
 */
export async function dispatchDeliveries(queue: JobQueue, deliveries: readonly RaisedDelivery[]): Promise<void> {
  for (const delivery of deliveries) {
    await queue.requeue("deliver-webhook", { event_id: delivery.eventId, webhook_id: delivery.webhookId }, `webhook-${delivery.eventId}-${delivery.webhookId}`);
  }
}

/**
 * Dispatches deliveries its caller raised and committed: at once rather than at the relay's
 * next run. Never fails the caller, whose change has committed: a delivery left undispatched
 * (the queue down) is the relay's, within RELAY_BACKSTOP_MS.
 */
export async function dispatchCommitted(deps: { queue: JobQueue; logger: Logger }, deliveries: readonly RaisedDelivery[]): Promise<void> {
  try {
    await dispatchDeliveries(deps.queue, deliveries);
  } catch (error) {
    deps.logger.warn({ err: error }, "webhook deliveries could not be queued now; the relay queues them");
  }
}

/**
 * The outbox relay: every due, unclaimed delivery (a new event, a retry whose time came, one
 * whose worker died mid-attempt) gets its deliver-webhook job. The events were committed with
 * what raised them, so a parser killed at any point loses none: the next relay finds them.
 * Returns how many it queued.
 */
export async function relayDueDeliveries(deps: { db: Db; queue: JobQueue }): Promise<number> {
  const due = await dueDeliveries(deps.db, BATCH);
  await dispatchDeliveries(deps.queue, due);
  return due.length;
}

/**
 * Runs the relay in this process: at once when kicked (this process stored events, or an
 * attempt scheduled a retry), when the next pending delivery becomes due (a retry, a
 * `sim.delay` copy, a lapsed claim), within RELAY_RECHECK_MS of a run that queued some, and at
 * least every RELAY_BACKSTOP_MS. An idle process with no pending delivery wakes once a backstop
 * period.
 */
export function startWebhookRelay(deps: { db: Db; queue: JobQueue; logger: Logger }): DueLoop {
  return runWhenDue(
    async () => {
      const queued = await relayDueDeliveries(deps);
      if (queued === BATCH) return 0;
      const nextDue = await msUntilNextDelivery(deps.db);
      return queued === 0 ? nextDue : Math.min(nextDue ?? RELAY_RECHECK_MS, RELAY_RECHECK_MS);
    },
    { maxSleepMs: RELAY_BACKSTOP_MS, retryMs: RELAY_RETRY_MS, onError: (error) => deps.logger.warn({ err: error }, "webhook relay run failed; the next one tries again") },
  );
}
