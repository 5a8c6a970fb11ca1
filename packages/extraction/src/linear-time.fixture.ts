/**
 * The bound of the extraction's "linear time" tests. Their inputs (100–500 KB) are read by
 * linear code in 10–150 ms on an idle core (speed is the benchmark's business), where
 * quadratic backtracking takes minutes and exponential forever: the bound is that difference,
 * far enough above linear to hold while other work loads both cores (a run at load 8 took
 * 1.5 s for 200 KB).
 */
export const LINEAR_TIME_BOUND_MS = 15_000;

/** Runs `read` and fails when it took longer than linear code could. */
export function expectLinearTime(read: () => void): void {
  const started = performance.now();
  read();
  expect(performance.now() - started).toBeLessThan(LINEAR_TIME_BOUND_MS);
}
