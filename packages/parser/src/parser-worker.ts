import type { ParserDeps } from "./deps";
import { parseMessageJob, publishArrivalJob } from "./parse-message.job";
import { reapJob } from "./reap.job";

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
  };
}
