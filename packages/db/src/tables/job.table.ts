import type { ColumnType, Generated } from "kysely";

/** A background job of the in-process queue (the monolith without Redis). */
export interface JobsTable {
  id: Generated<string>;
  name: string;
  job_key: string | null;
  payload: ColumnType<unknown, string, string>;
  state: Generated<"waiting" | "active" | "failed">;
  attempts: Generated<number>;
  max_attempts: number;
  backoff_ms: number;
  run_at: ColumnType<Date, Date | undefined, Date>;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}
