import type { ColumnType } from "kysely";

/** Who made a change: an API key (its id), the operator (`admin`), or the service itself (a named part of it). */
export type AuditActorType = "api_key" | "admin" | "system";

export interface AuditEventsTable {
  id: string;
  project_id: string;
  at: Date;
  actor_type: AuditActorType;
  actor_id: string;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  details: ColumnType<Record<string, unknown>, string, never>;
}
