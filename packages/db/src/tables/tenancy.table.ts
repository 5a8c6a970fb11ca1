import type { ColumnType, Generated } from "kysely";

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface OrganisationsTable {
  id: string;
  name: string;
  suspended: Generated<boolean>;
  organisation_limits: Generated<boolean>;
  // int8 comes back as a string; null: no limit.
  monthly_messages: ColumnType<string | null, number | null | undefined, number | null>;
  storage_bytes: ColumnType<string | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
}

export interface ProjectsTable {
  id: string;
  organisation_id: string;
  key: string;
  region: "us" | "eu";
  max_concurrent_waits: Generated<number>;
  // pg returns int8 as a string to keep precision.
  ingest_ceiling: ColumnType<string | null, number | null | undefined, number | null>;
  monthly_messages: ColumnType<string | null, number | null | undefined, number | null>;
  /** Requests per second per key, per class; null: the server's default. */
  rate_limit_read: ColumnType<number | null, number | null | undefined, number | null>;
  rate_limit_write: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  key_hash: Buffer;
  environment: "test" | "live";
  scopes: string[];
  expires_at: Date | null;
  revoked_at: ColumnType<Date | null, never, Date>;
  created_at: CreatedAt;
}

export interface SmtpCredentialsTable {
  project_id: string;
  username: string;
  password_hash: Buffer;
  created_at: CreatedAt;
}

export interface BlockedRecipientsTable {
  address: string;
  created_at: CreatedAt;
}
