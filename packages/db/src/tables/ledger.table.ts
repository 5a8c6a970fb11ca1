import type { ColumnType, Generated } from "kysely";

/** One project's share of an accepted transaction, as the parse job carries it. */
export interface LedgerDelivery {
  project_id: string;
  project_key: string;
  raw_key: string;
  recipients: { address: string; inbox_id: string | null; sim: "delay" | "complaint" | null }[];
}

/** The accept ledger: one row per SMTP transaction answered 250 (see the migration that creates it). */
export interface AcceptedTransactionsTable {
  id: string;
  kind: "received" | "captured";
  size: number;
  envelope_from: string | null;
  /** The SMTP client's IP address and HELO name; null on rows from before they were recorded. */
  client_address: string | null;
  client_helo: string | null;
  deliveries: ColumnType<LedgerDelivery[], string, string>;
  accepted_at: Date;
  state: Generated<"open" | "done">;
  /** How many times the reconciler has enqueued its job again. */
  requeues: Generated<number>;
  requeued_at: Date | null;
  done_at: Date | null;
}
