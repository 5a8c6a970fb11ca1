/** Seconds after each failed attempt before the next: 8 attempts in all. */
export const DEFAULT_RETRY_SCHEDULE_S = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];

/**
 * When attempt `attempt + 1` runs after attempt `attempt` (1-based) failed, or null when the
 * schedule is spent. Up to 10 % jitter spreads the retries of many events failing together.
 */
export function nextAttemptDelayMs(schedule: readonly number[], attempt: number, random: () => number = Math.random): number | null {
  const seconds = schedule[attempt - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (1 + 0.1 * random()));
}
