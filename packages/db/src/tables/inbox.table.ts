import type { ColumnType, Generated } from "kysely";

export type Labels = Record<string, string>;

export interface DomainsTable {
  id: string;
  project_id: string;
  domain: string;
  status: Generated<"pending" | "verified">;
  ownership_token: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  verified_at: Date | null;
  last_checked_at: Date | null;
  last_check: ColumnType<DomainCheck | null, string | null, string | null>;
}

/** What one DNS verification found: `missing` names each record not found ("txt", "mx"). */
export interface DomainCheck {
  ok: boolean;
  missing: ("txt" | "mx")[];
  /** Why, in words: each lookup's answer or error, for the person publishing the records. */
  detail: string;
}

export interface InboxesTable {
  id: string;
  project_id: string;
  domain_id: string | null;
  tag: string;
  address: string;
  labels: ColumnType<Labels, string, string>;
  retention_seconds: number;
  created_at: ColumnType<Date, Date | undefined, never>;
  last_message_at: ColumnType<Date | null, never, Date>;
  message_count: ColumnType<number, never, number>;
}
