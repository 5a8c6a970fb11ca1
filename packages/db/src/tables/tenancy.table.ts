import type { ColumnType, Generated } from "kysely";

type CreatedAt = ColumnType<Date, Date | undefined, never>;

/** A nullable limit column, written as a number; `Read` is what pg returns: int8 comes back as a string, to keep precision. */
type Limit<Read extends string | number> = ColumnType<Read | null, number | null | undefined, number | null>;

export interface OrganisationsTable {
  id: string;
  name: string;
  suspended: Generated<boolean>;
  organisation_limits: Generated<boolean>;
  // null: no limit.
  monthly_messages: Limit<string>;
  storage_bytes: Limit<string>;
  created_at: CreatedAt;
}

export interface ProjectsTable {
  id: string;
  organisation_id: string;
  key: string;
  region: "us" | "eu";
  max_concurrent_waits: Generated<number>;
  // null: no limit.
  ingest_ceiling: Limit<string>;
  monthly_messages: Limit<string>;
  /** Requests per second per key, per class; null: the server's default. */
  rate_limit_read: Limit<number>;
  rate_limit_write: Limit<number>;
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
