import type { BlobStore } from "@mailstop/blob-store";
import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { Bus, JobQueue } from "@mailstop/messaging";
import type { Metrics } from "@mailstop/metrics";

/** What the parser worker needs, built once by the runtime. */
export interface ParserDeps {
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  bus: Bus;
  config: Config;
  logger: Logger;
  /** Accept-to-visible latency; none in tests that run a job alone. */
  metrics?: Metrics;
  /** This process's webhook relay, kicked when stored copies raised webhook events; none in tests that run a job alone. */
  webhookRelay?: { kick(): void };
}
