import type { ParserDeps } from "./deps";
import { parseMessageJob, publishArrivalJob } from "./parse-message.job";
import { reapJob } from "./reap.job";
import { reconcileJob } from "./reconcile.job";
import { sweepOrphansJob } from "./sweep-orphans.job";

export interface ParserWorkerOptions {
  /** Jobs in flight at once; parsing is mostly I/O (object store, database). */
  concurrency: number;
}

/** The jobs the parser service consumes, by catalog name. */
export function parserJobs(deps: ParserDeps) {
  return {
    "parse-message": parseMessageJob(deps),
    "publish-arrival": publishArrivalJob(deps),
    reap: reapJob(deps),
    // Run on a timer of each parser now (startReconciler); kept for a schedule an earlier
    // version left in Redis, which still produces these jobs.
    reconcile: async () => void (await reconcileJob(deps)()),
    "sweep-orphans": async () => void (await sweepOrphansJob(deps)()),
  };
}
