/** The q-quantile (0..1) of a sample, nearest rank; NaN for an empty sample. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** The arithmetic mean; NaN for an empty sample. */
export const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
export const median = (values: readonly number[]) => quantile(values, 0.5);
export const p99 = (values: readonly number[]) => quantile(values, 0.99);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every `everyMs` until it returns true, or throws after `timeoutMs`. */
export async function until(probe: () => Promise<boolean>, what: string, timeoutMs: number, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
