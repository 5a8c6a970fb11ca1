import { RECONCILE_MIN_AGE_S, runWhenDue } from "@mailstop/core";
import { type AcceptedTransaction, type Db, claimOrphanedTransactions, claimStaleTransactions, msUntilNextStaleTransaction } from "@mailstop/db";
import type { ParseMessageJob } from "@mailstop/messaging";
import type { ParserDeps } from "./deps";

const BATCH = 200;

/** The parse job of a ledger row: what the edge enqueued, but the raw bytes (read back from the store). */
export function parseJobOf(transaction: AcceptedTransaction): ParseMessageJob {
  return {
    transaction_id: transaction.id,
    kind: transaction.kind,
    size: transaction.size,
    received_at: transaction.acceptedAt.toISOString(),
    envelope_from: transaction.envelopeFrom,
    ...(transaction.clientAddress ? { client_address: transaction.clientAddress } : {}),
    ...(transaction.clientHelo ? { client_helo: transaction.clientHelo } : {}),
    deliveries: transaction.deliveries,
  };
}

/**
 * The accept ledger's reconciler: every transaction answered 250 whose row is still open after
 * the grace period gets its parse job again (JobQueue.requeue: nothing if it is only waiting,
 * a fresh job if it was lost with Redis, never enqueued, or failed for good). The parse is
 * idempotent, so a requeue of a job that was merely slow stores nothing twice. Returns how
 * many transactions it queued.
 */
export function reconcileJob(deps: ParserDeps) {
  return async (): Promise<number> => {
    const requeued = await requeueClaimed(deps, (db, limit) => claimStaleTransactions(db, graceSecondsOf(deps), limit));
    if (requeued > 0) deps.logger.warn({ transactions: requeued }, "reconciler queued the parse jobs of accepted transactions still open after the grace period");
    return requeued;
  };
}

/**
 * Queues the parse job of every transaction still open that was accepted before `startedAt`,
 * the start of this run. Only for a process that is its database's only one and keeps its parse
 * jobs in memory (the embedded monolith), before its SMTP edge listens: those transactions are
 * exactly what a crash left unparsed, so they need not wait out the grace. Returns how many it
 * queued.
 */
export async function reconcileOrphans(deps: ParserDeps, startedAt: Date): Promise<number> {
  const requeued = await requeueClaimed(deps, (db, limit) => claimOrphanedTransactions(db, startedAt, limit));
  if (requeued > 0) deps.logger.warn({ transactions: requeued }, "queued again the parse jobs of accepted transactions a crash left open");
  return requeued;
}

/** Requeues the parse job of each transaction `claim` takes, a batch at a time until it takes a short one; returns how many. */
async function requeueClaimed(deps: ParserDeps, claim: (db: Db, limit: number) => Promise<AcceptedTransaction[]>): Promise<number> {
  let requeued = 0;
  for (let claimed = BATCH; claimed === BATCH; ) {
    const transactions = await claim(deps.db, BATCH);
    claimed = transactions.length;
    for (const transaction of transactions) await deps.queue.requeue("parse-message", parseJobOf(transaction), transaction.id);
    requeued += claimed;
  }
  return requeued;
}

/** The grace in effect: the setting, never below what the edge's write deadline needs. */
const graceSecondsOf = (deps: ParserDeps) => Math.max(deps.config.reconcileGraceSeconds, RECONCILE_MIN_AGE_S);

/** The shortest sleep between runs: a row stale already but not claimable never makes it spin. */
const MIN_SLEEP_MS = 1_000;

/**
 * Runs the reconciler now and then whenever the next open transaction turns stale, one run at
 * a time, until `stop`; with none open, after one grace period, the soonest a transaction
 * accepted meanwhile can turn stale. So an idle process runs it once a grace period (a
 * minute by default), and a lost job is queued again when its grace runs out, not up to half
 * a period later (docs/performance.md "What wakes up while idle"). A timer of the parser's
 * own rather than a job schedule: the schedule would live in Redis, and the reconciler is
 * what repairs a Redis that lost everything (a FLUSHALL keeps the connection, so nothing
 * re-declared the schedule for up to a minute). Several parsers running it at once claim
 * disjoint rows (see claimStaleTransactions).
 */
export function startReconciler(deps: ParserDeps): { stop(): Promise<void> } {
  const reconcile = reconcileJob(deps);
  const graceMs = graceSecondsOf(deps) * 1000;
  // It runs at every start too: what a crash left open is repaired first.
  return runWhenDue(
    async () => {
      await reconcile();
      const dueInMs = await msUntilNextStaleTransaction(deps.db, graceSecondsOf(deps));
      return dueInMs === null ? null : Math.max(dueInMs, MIN_SLEEP_MS);
    },
    { maxSleepMs: graceMs, retryMs: graceMs / 2, onError: (error) => deps.logger.warn({ err: error }, "reconciler run failed; the next one tries again") },
  );
}
