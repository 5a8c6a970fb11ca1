import { METRICS } from "@mailstop/core";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../database";

const MESSAGE_METRICS = sql.join([METRICS.received, METRICS.captured].map((metric) => sql.lit(metric)));

/**
 * Messages a project took in during the period (received plus captured), as an expression on
 * a project id (a column reference or a value): at most two rows of `usage_counters`' key.
 */
export function projectMessagesUsed(projectId: RawBuilder<unknown> | string, period: string): RawBuilder<string> {
  return sql<string>`(select coalesce(sum(u.used), 0) from usage_counters u
    where u.project_id = ${projectId} and u.period_start = ${period} and u.metric in (${MESSAGE_METRICS}))`;
}

/** Messages the organisation's projects took in during the period, summed (by its projects' index and the counters' key). */
export function organisationMessagesUsed(organisationId: RawBuilder<unknown> | string, period: string): RawBuilder<string> {
  return sql<string>`(select coalesce(sum(u.used), 0) from projects op
    join usage_counters u on u.project_id = op.id and u.period_start = ${period} and u.metric in (${MESSAGE_METRICS})
    where op.organisation_id = ${organisationId})`;
}

/** The organisation's stored bytes: its projects' `storage.bytes` meters, summed. */
export function organisationStoredBytes(organisationId: RawBuilder<unknown> | string): RawBuilder<string> {
  return sql<string>`(select coalesce(sum(s.bytes), 0) from projects op
    join storage_usage s on s.project_id = op.id
    where op.organisation_id = ${organisationId})`;
}

/** The project's `storage.bytes` meter. */
export function projectStoredBytes(projectId: RawBuilder<unknown> | string): RawBuilder<string> {
  return sql<string>`(select coalesce(max(s.bytes), 0) from storage_usage s where s.project_id = ${projectId})`;
}

/** int8 as pg returns it (text), or null when not read. */
export const countOf = (value: string | number | null): number | null => (value === null ? null : Number(value));

/** Everything `GET /v1/usage` shows, in one query. */
export interface UsageRecord {
  organisationLimits: boolean;
  project: {
    received: number;
    captured: number;
    storedBytes: number;
    monthlyMessages: number | null;
    maxConcurrentWaits: number;
    ingestCeiling: number | null;
    rateLimits: { read: number | null; write: number | null };
  };
  /** The organisation's totals over its projects, and its limits. */
  organisation: { received: number; captured: number; storedBytes: number; monthlyMessages: number | null; storageBytes: number | null };
}

/** The project's usage in the period and its limits, and its organisation's totals and limits. */
export async function readUsage(db: Db, projectId: string, period: string): Promise<UsageRecord | null> {
  const projectCounter = (metric: string) =>
    sql<string>`(select coalesce(sum(u.used), 0) from usage_counters u where u.project_id = p.id and u.period_start = ${period} and u.metric = ${metric})`;
  const organisationCounter = (metric: string) =>
    sql<string>`(select coalesce(sum(u.used), 0) from projects op
      join usage_counters u on u.project_id = op.id and u.period_start = ${period} and u.metric = ${metric}
      where op.organisation_id = o.id)`;
  const row = await db
    .selectFrom("projects as p")
    .innerJoin("organisations as o", "o.id", "p.organisation_id")
    .select([
      "p.monthly_messages",
      "p.max_concurrent_waits",
      "p.ingest_ceiling",
      "p.rate_limit_read",
      "p.rate_limit_write",
      "o.organisation_limits",
      "o.monthly_messages as organisation_monthly_messages",
      "o.storage_bytes as organisation_storage_bytes",
      projectCounter(METRICS.received).as("received"),
      projectCounter(METRICS.captured).as("captured"),
      projectStoredBytes(sql.ref("p.id")).as("stored_bytes"),
      organisationCounter(METRICS.received).as("organisation_received"),
      organisationCounter(METRICS.captured).as("organisation_captured"),
      organisationStoredBytes(sql.ref("o.id")).as("organisation_stored_bytes"),
    ])
    .where("p.id", "=", projectId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    organisationLimits: row.organisation_limits,
    project: {
      received: Number(row.received),
      captured: Number(row.captured),
      storedBytes: Number(row.stored_bytes),
      monthlyMessages: countOf(row.monthly_messages),
      maxConcurrentWaits: row.max_concurrent_waits,
      ingestCeiling: countOf(row.ingest_ceiling),
      rateLimits: { read: row.rate_limit_read, write: row.rate_limit_write },
    },
    organisation: {
      received: Number(row.organisation_received),
      captured: Number(row.organisation_captured),
      storedBytes: Number(row.organisation_stored_bytes),
      monthlyMessages: countOf(row.organisation_monthly_messages),
      storageBytes: countOf(row.organisation_storage_bytes),
    },
  };
}
