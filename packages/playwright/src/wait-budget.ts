/** The wait's default when neither the call nor the options name one. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;
/** The server refuses longer waits (SPEC: at most 285 s). */
export const MAX_WAIT_TIMEOUT_MS = 285_000;
/** Left to the test after a wait gives up: time to report the server's hint before Playwright's own timeout. */
const REPORT_MARGIN_MS = 1_000;

/**
 * How long one wait may block: what was asked (else the default), and never past the test's
 * own deadline, so a missing email fails with the server's hint ("nothing arrived", "3 arrived,
 * none with that subject") instead of Playwright's bare "Test timeout exceeded".
 * `testTimeoutMs` 0 means the test has no timeout.
 */
export function waitBudget(requestedMs: number | undefined, testTimeoutMs: number, elapsedMs: number): number {
  const wanted = Math.min(requestedMs ?? DEFAULT_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS);
  if (testTimeoutMs === 0) return wanted;
  const left = testTimeoutMs - elapsedMs - REPORT_MARGIN_MS;
  return Math.max(1, Math.min(wanted, left));
}
