import type { ColumnType, Generated } from "kysely";

export type WebhookEventType = "message.received" | "message.captured" | "message.complaint" | "domain.verified" | "webhook.test";

export interface WebhooksTable {
  id: string;
  project_id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  failing_streak: Generated<number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  event_id: string;
  webhook_id: string;
  project_id: string;
  event_type: WebhookEventType;
  body: string | null;
  /** What the event is about when its body is rendered at the first attempt (a message id). */
  subject_id: string | null;
  state: Generated<"pending" | "succeeded" | "failed">;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  claimed_until: Date | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface WebhookAttemptsTable {
  id: string;
  webhook_id: string;
  project_id: string;
  event_id: string;
  event_type: WebhookEventType;
  attempt: number;
  status: "succeeded" | "failed";
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
  next_attempt_at: Date | null;
}
