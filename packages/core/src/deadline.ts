/**
 * How long the SMTP edge waits for each of a transaction's durable writes (its raw source in the
 * object store, its accept-ledger row) before it answers 451: a hung engine must not hold DATA
 * open. The reconciler leaves a ledger row alone until well past it (see reconcile.job.ts).
 */
export const ACCEPT_WRITE_DEADLINE_MS = 10_000;

/**
 * The youngest a ledger row may be when the reconciler takes it, whatever the grace: past the
 * edge's write deadline, with room for its clean-up. A row younger than that may belong to a
 * transaction the edge is about to answer 451 (its raw put still hanging): parsed as well, it
 * would become a second copy once the sender retries (seen with a 3 s grace and a frozen store).
 */
export const RECONCILE_MIN_AGE_S = ACCEPT_WRITE_DEADLINE_MS / 1000 + 5;

/** What {@link withinDeadline} rejects with when the deadline passes first. */
export class DeadlineExceeded extends Error {
  override name = "DeadlineExceeded";
}

/**
 * `promise`, or a rejection with DeadlineExceeded if it has not settled within `ms`. The work
 * itself goes on (a promise cannot be cancelled); its late rejection is swallowed so it never
 * becomes an unhandled one. For calls into engines that wait rather than fail when their
 * server is gone (BullMQ, a frozen object store), where a caller must answer someone in time.
 */
export function withinDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`${what} did not complete within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
