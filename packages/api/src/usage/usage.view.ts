import type { Config } from "@mailstop/config";
import { METRICS, STORAGE_METRIC, periodEnd } from "@mailstop/core";
import type { UsageRecord } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

type UsageView = PublicComponents["schemas"]["Usage"];

/**
 * The usage document (docs/api.md "Usage"). Its numbers are the ones the 402s are decided by:
 * with organisation limits on, `used` is the organisation's (summed over its projects) against
 * the organisation's limits; off, the project's against its own allowance, and storage has no
 * limit. The message allowance counts received plus captured, so both message metrics show it.
 */
export function toUsageView(usage: UsageRecord, config: Config, period: { start: Date; end: Date }): UsageView {
  const scope = usage.organisationLimits ? usage.organisation : usage.project;
  const messageLimit = scope.monthlyMessages;
  return {
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
    metrics: [
      { metric: METRICS.received, used: scope.received, limit: messageLimit },
      { metric: METRICS.captured, used: scope.captured, limit: messageLimit },
      { metric: STORAGE_METRIC, used: scope.storedBytes, limit: usage.organisationLimits ? usage.organisation.storageBytes : null },
    ],
    limits: {
      max_concurrent_waits: usage.project.maxConcurrentWaits,
      ingest_ceiling: usage.project.ingestCeiling,
      rate_limits: { read: usage.project.rateLimits.read ?? config.rateLimits.read, write: usage.project.rateLimits.write ?? config.rateLimits.write },
    },
  };
}

/** The billing period containing `now`: its first instant and the first of the next (UTC). */
export function billingPeriod(now: Date): { start: Date; end: Date } {
  return { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), end: periodEnd(now) };
}
