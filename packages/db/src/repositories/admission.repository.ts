import { type LimitState, spentLimit } from "@mailstop/core";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../database";
import { countOf, organisationMessagesUsed, organisationStoredBytes, projectMessagesUsed } from "./usage.repository";

/**
 * What the SMTP edge needs to admit a project's mail at RCPT: whether its organisation is
 * suspended, its ingest ceiling, and its organisation's limits, each with the usage it is
 * measured against. A project's own allowance (`monthly_messages`) never refuses mail, so it
 * is not here.
 */
export interface Admission {
  suspended: boolean;
  ingestCeiling: number | null;
  /** Messages the project took in this period; null when not read (no ceiling, or not asked). */
  ingested: number | null;
  /** The organisation's limits (the project's allowance left out: it never refuses mail). */
  limits: LimitState;
  /** Whether a limit needs usage read at RCPT (a ceiling, or organisation limits on). */
  metered: boolean;
}

/**
 * The selection behind {@link Admission}, on `projects as p` joined to `organisations as o`.
 * Each usage is summed only when a limit that needs it is set (CASE runs its subquery only on
 * its branch), and not at all without a `period` (the capture relay's AUTH, which reads usage
 * again at RCPT).
 */
export function admissionColumns(period: string | null) {
  const usage = (condition: RawBuilder<unknown>, sum: (period: string) => RawBuilder<string>) =>
    period === null ? sql<string | null>`null` : sql<string | null>`case when ${condition} then ${sum(period)} end`;
  return [
    "o.suspended",
    "o.organisation_limits",
    "p.ingest_ceiling",
    "o.monthly_messages as organisation_monthly_messages",
    "o.storage_bytes as organisation_storage_bytes",
    usage(sql`p.ingest_ceiling is not null`, (at) => projectMessagesUsed(sql.ref("p.id"), at)).as("ingested"),
    usage(sql`o.organisation_limits and o.monthly_messages is not null`, (at) => organisationMessagesUsed(sql.ref("o.id"), at)).as("organisation_messages_used"),
    usage(sql`o.organisation_limits and o.storage_bytes is not null`, () => organisationStoredBytes(sql.ref("o.id"))).as("organisation_stored_bytes"),
  ] as const;
}

export interface AdmissionRow {
  suspended: boolean;
  organisation_limits: boolean;
  ingest_ceiling: string | number | null;
  organisation_monthly_messages: string | number | null;
  organisation_storage_bytes: string | number | null;
  ingested: string | number | null;
  organisation_messages_used: string | number | null;
  organisation_stored_bytes: string | number | null;
}

export function toAdmission(row: AdmissionRow): Admission {
  const ingestCeiling = countOf(row.ingest_ceiling);
  return {
    suspended: row.suspended,
    ingestCeiling,
    ingested: countOf(row.ingested),
    limits: {
      organisationLimits: row.organisation_limits,
      project: { monthlyMessages: null, messagesUsed: null },
      organisation: {
        monthlyMessages: countOf(row.organisation_monthly_messages),
        messagesUsed: countOf(row.organisation_messages_used),
        storageBytes: countOf(row.organisation_storage_bytes),
        storedBytes: countOf(row.organisation_stored_bytes),
      },
    },
    metered: ingestCeiling !== null || row.organisation_limits,
  };
}

/** Why the project's mail is refused at RCPT, or null when it is admitted (the order of docs/smtp.md's table). */
export type Refusal = "suspended" | "ingest_ceiling" | "organisation_limit";

/**
 * The decision on an admission: its organisation suspended, its ingest ceiling reached, or its
 * organisation's limits on and reached. A project's own allowance never refuses mail: it
 * refuses reads.
 */
export function refusalOf(admission: Admission): Refusal | null {
  if (admission.suspended) return "suspended";
  if (admission.ingestCeiling !== null && (admission.ingested ?? 0) >= admission.ingestCeiling) return "ingest_ceiling";
  if (spentLimit(admission.limits) !== null) return "organisation_limit";
  return null;
}

/** The project's admission now, with the usage its limits need in `period`; null when the project is gone. */
export async function findAdmission(db: Db, projectId: string, period: string): Promise<Admission | null> {
  const row = await db
    .selectFrom("projects as p")
    .innerJoin("organisations as o", "o.id", "p.organisation_id")
    .select(admissionColumns(period))
    .where("p.id", "=", projectId)
    .executeTakeFirst();
  return row ? toAdmission(row) : null;
}
