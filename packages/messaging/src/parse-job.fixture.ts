import type { ParseMessageJob } from "./catalog";

/** A valid parse job for `transaction`, for the queue tests (no raw source behind it). */
export function parseJobOf(transaction: string): ParseMessageJob {
  return {
    transaction_id: transaction,
    kind: "received",
    size: 10,
    received_at: new Date().toISOString(),
    envelope_from: "a@b.c",
    deliveries: [
      {
        project_id: "prj_x",
        project_key: "acme",
        raw_key: `projects/prj_x/tx/${transaction}/raw.eml`,
        recipients: [{ address: "acme.x@mailstop.test", inbox_id: "ibx_x", sim: null }],
      },
    ],
  };
}
