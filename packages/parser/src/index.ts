export { parserJobs, type ParserWorkerOptions } from "./parser-worker";
export { parseMessageJob } from "./parse-message.job";
export type { ParserDeps } from "./deps";
export { readMessage } from "./read-message";
export { buildContent, listUnsubscribeUrls } from "./content";
export { reapJob } from "./reap.job";
export { reconcileJob, reconcileOrphans, startReconciler } from "./reconcile.job";
export { sweepOrphansJob } from "./sweep-orphans.job";
