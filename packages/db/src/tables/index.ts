import type { AuditEventsTable } from "./audit.table";
import type { JobsTable } from "./job.table";
import type { AcceptedTransactionsTable } from "./ledger.table";
import type { IngestReservationsTable } from "./reservation.table";
import type { DomainsTable, InboxesTable } from "./inbox.table";
import type { AttachmentsTable, BlobDeletionsTable, MessagesTable, StorageUsageTable, StreamTokensTable, UsageCountersTable } from "./message.table";
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from "./webhook.table";
import type { ApiKeysTable, BlockedRecipientsTable, OrganisationsTable, ProjectsTable, SmtpCredentialsTable } from "./tenancy.table";

/** The schema as kysely sees it; one entry per table the migrations create. */
export interface Database {
  organisations: OrganisationsTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  smtp_credentials: SmtpCredentialsTable;
  blocked_recipients: BlockedRecipientsTable;
  domains: DomainsTable;
  inboxes: InboxesTable;
  messages: MessagesTable;
  attachments: AttachmentsTable;
  usage_counters: UsageCountersTable;
  storage_usage: StorageUsageTable;
  blob_deletions: BlobDeletionsTable;
  stream_tokens: StreamTokensTable;
  jobs: JobsTable;
  accepted_transactions: AcceptedTransactionsTable;
  ingest_reservations: IngestReservationsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  audit_events: AuditEventsTable;
}

export type { Labels } from "./inbox.table";
export type { LedgerDelivery } from "./ledger.table";
export type { AuthenticationCheck, HtmlCheck, LinkCheck, LinkResult, MessageAddress, MessageChecks, MessageLink, MessageParts, SpamCheck } from "./message.table";
export { MESSAGE_COLUMNS } from "./message.table";
