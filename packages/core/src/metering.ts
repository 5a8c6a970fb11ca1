/** The metered events, counted per project and billing period (docs/api.md "Rate classes"). */
export const METRICS = { received: "message.received", captured: "message.captured" } as const;
export type Metric = (typeof METRICS)[keyof typeof METRICS];
/** The stored-bytes meter: a level (bytes of the project's stored, not-deleted messages), not a count per period. */
export const STORAGE_METRIC = "storage.bytes";

/** The billing period of an instant: the calendar month in UTC, as its first day (YYYY-MM-DD). */
export function periodStart(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, "0")}-01`;
}

/** When the period containing `at` ends (the first instant of the next month, UTC). */
export function periodEnd(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
