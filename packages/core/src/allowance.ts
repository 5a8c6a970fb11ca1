import { MailstopError } from "./errors";
import { periodEnd } from "./metering";

/** The limits an allowance error names (`details.limit_kind`). */
export type LimitKind = "monthly_messages" | "storage_bytes";

/**
 * A project's and its organisation's limits with the usage each is measured against. A usage
 * is null when it was not read because no limit needs it (the hot path reads only what a set
 * limit needs; see findApiKeyByHash), and counts as 0.
 */
export interface LimitState {
  /** The organisation's limits apply instead of the project's (the operator's `organisation_limits`). */
  organisationLimits: boolean;
  project: { monthlyMessages: number | null; messagesUsed: number | null };
  organisation: { monthlyMessages: number | null; messagesUsed: number | null; storageBytes: number | null; storedBytes: number | null };
}

/**
 * Whether a limit applies whose check needs usage, which changes with every stored message:
 * a project allowance, or with organisation limits on, either organisation limit. A key whose
 * project has none can be authenticated without reading usage (docs/decisions.md "The API-key cache").
 */
export function limitsNeedUsage(state: LimitState): boolean {
  if (state.organisationLimits) return state.organisation.monthlyMessages !== null || state.organisation.storageBytes !== null;
  return state.project.monthlyMessages !== null;
}

/** A limit that is spent: used ≥ limit. */
export interface SpentLimit {
  /** `project`: the project's own allowance (402 quota_exceeded); `organisation`: 402 organisation_limit_exceeded. */
  scope: "project" | "organisation";
  limitKind: LimitKind;
  used: number;
  limit: number;
}

/**
 * The limit that is spent, or null. With organisation limits on, only the organisation's
 * limits count (messages summed over its projects first, then stored bytes); with them off,
 * only the project's `monthly_messages`. Messages are received plus captured in the period.
 */
export function spentLimit(state: LimitState): SpentLimit | null {
  if (state.organisationLimits) {
    const { monthlyMessages, messagesUsed, storageBytes, storedBytes } = state.organisation;
    if (monthlyMessages !== null && (messagesUsed ?? 0) >= monthlyMessages) {
      return { scope: "organisation", limitKind: "monthly_messages", used: messagesUsed ?? 0, limit: monthlyMessages };
    }
    if (storageBytes !== null && (storedBytes ?? 0) >= storageBytes) {
      return { scope: "organisation", limitKind: "storage_bytes", used: storedBytes ?? 0, limit: storageBytes };
    }
    return null;
  }
  const { monthlyMessages, messagesUsed } = state.project;
  if (monthlyMessages !== null && (messagesUsed ?? 0) >= monthlyMessages) {
    return { scope: "project", limitKind: "monthly_messages", used: messagesUsed ?? 0, limit: monthlyMessages };
  }
  return null;
}

/**
 * The 402 of a spent limit: `quota_exceeded` for the project's allowance (not retryable: it
 * lasts until the period ends or the operator raises it), `organisation_limit_exceeded` for
 * the organisation's (retryable). `period_resets_at` is the end of the calendar month (UTC);
 * stored bytes do not reset with it, they fall as messages are deleted or expire.
 */
export function limitError(spent: SpentLimit, now = new Date()): MailstopError {
  const details = { limit_kind: spent.limitKind, used: spent.used, limit: spent.limit, period_resets_at: periodEnd(now).toISOString() };
  if (spent.scope === "project") {
    return new MailstopError(
      "quota_exceeded",
      `This project has used its allowance of ${spent.limit} messages (received and captured) this month; mail is still accepted and stored, and reads resume when the period resets or the allowance is raised.`,
      { details },
    );
  }
  const what = spent.limitKind === "monthly_messages" ? `${spent.limit} messages this month` : `${spent.limit} stored bytes`;
  return new MailstopError(
    "organisation_limit_exceeded",
    `This project's organisation has reached its limit of ${what}; its mail is refused and its requests fail until usage falls below the limit or the limit is raised.`,
    { details },
  );
}
