import type { Migration } from "kysely";
import * as createTenancy from "./2026_11_22_000100_create_tenancy";
import * as createInboxes from "./2026_11_22_000200_create_inboxes";
import * as createMessages from "./2026_11_22_000300_create_messages";
import * as createBlobDeletions from "./2026_11_22_000400_create_blob_deletions";
import * as createEventStream from "./2026_11_22_000500_create_event_stream";
import * as createJobs from "./2026_11_23_000100_create_jobs";
import * as bodiesInRows from "./2026_11_23_000200_bodies_in_rows";
import * as createAcceptedTransactions from "./2026_11_24_000100_create_accepted_transactions";
import * as domainChecks from "./2026_11_25_000100_domain_checks";
import * as createWebhooks from "./2026_11_25_000200_create_webhooks";
import * as usageLimits from "./2026_11_26_000100_usage_limits";
import * as createAuditEvents from "./2026_11_26_000300_create_audit_events";
import * as createStorageUsage from "./2026_11_27_000100_create_storage_usage";
import * as indexWebhookDeliveriesSubject from "./2026_11_28_000100_index_webhook_deliveries_subject";
import * as createIngestReservations from "./2026_11_28_000200_create_ingest_reservations";
import * as ledgerConnectionFacts from "./2026_11_29_000100_ledger_connection_facts";
import * as messageChecks from "./2026_11_29_000200_message_checks";

/**
 * Every migration, in order. A static index (not a folder scan) so bundlers and the
 * container image carry them; names sort by their date prefix.
 */
export const MIGRATIONS: Record<string, Migration> = {
  "2026_11_22_000100_create_tenancy": createTenancy,
  "2026_11_22_000200_create_inboxes": createInboxes,
  "2026_11_22_000300_create_messages": createMessages,
  "2026_11_22_000400_create_blob_deletions": createBlobDeletions,
  "2026_11_22_000500_create_event_stream": createEventStream,
  "2026_11_23_000100_create_jobs": createJobs,
  "2026_11_23_000200_bodies_in_rows": bodiesInRows,
  "2026_11_24_000100_create_accepted_transactions": createAcceptedTransactions,
  "2026_11_25_000100_domain_checks": domainChecks,
  "2026_11_25_000200_create_webhooks": createWebhooks,
  "2026_11_26_000100_usage_limits": usageLimits,
  "2026_11_26_000300_create_audit_events": createAuditEvents,
  "2026_11_27_000100_create_storage_usage": createStorageUsage,
  "2026_11_28_000100_index_webhook_deliveries_subject": indexWebhookDeliveriesSubject,
  "2026_11_28_000200_create_ingest_reservations": createIngestReservations,
  "2026_11_29_000100_ledger_connection_facts": ledgerConnectionFacts,
  "2026_11_29_000200_message_checks": messageChecks,
};
