import type { BlobStore } from "@mailstop/blob-store";
import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import type { Greylist, JobQueue } from "@mailstop/messaging";
import type { Metrics } from "@mailstop/metrics";
import type { AcceptLedger } from "./accept-ledger";
import type { DiskGuard } from "./disk-space";

/** What both listeners need, built once by the runtime. */
export interface SmtpEdgeDeps {
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  /** Where each transaction is recorded before its 250 (one writer per process, see AcceptLedger). */
  ledger: AcceptLedger;
  greylist: Greylist;
  config: Config;
  logger: Logger;
  /** The embedded monolith's data directory and the free space kept on it (none on S3 and PostgreSQL). */
  disk?: DiskGuard;
  /** Sessions, recipients and transactions by reply class; none in tests that build an edge alone. */
  metrics?: Metrics;
}

/** A recipient accepted at RCPT, remembered until DATA. */
export interface AcceptedRecipient {
  /** As the sender wrote it (capture keeps it in `labels.recipient`). */
  address: string;
  projectId: string;
  projectKey: string;
  /** The receiving edge's inbox; null on the capture relay, whose inbox the parser ensures. */
  inboxId: string | null;
  sim: "delay" | "complaint" | null;
}
