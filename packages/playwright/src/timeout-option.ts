// The fixture's timeout options: `timeoutMs`, the one name across the SDK, the fixture and the
// CLI (`--timeout`); the older spellings still work, each warned once per worker.
let warnedWaitTimeoutMs = false;

/** The fixture's default wait: `timeoutMs`, else the deprecated `waitTimeoutMs` (warned once per worker). */
export function defaultTimeoutMs(options: { timeoutMs?: number | undefined; waitTimeoutMs?: number | undefined }): number | undefined {
  if (options.timeoutMs !== undefined || options.waitTimeoutMs === undefined) return options.timeoutMs;
  if (!warnedWaitTimeoutMs) {
    warnedWaitTimeoutMs = true;
    process.emitWarning('mailstopOptions "waitTimeoutMs" is deprecated: use "timeoutMs"', { type: "DeprecationWarning", code: "MAILSTOP_TIMEOUT_MS" });
  }
  return options.waitTimeoutMs;
}

let warnedTimeout = false;

/** One wait's `timeoutMs`, else the deprecated `timeout_ms` (warned once per worker). */
export function waitTimeoutMs(options: { timeoutMs?: number | undefined; timeout_ms?: number | undefined }): number | undefined {
  if (options.timeoutMs !== undefined || options.timeout_ms === undefined) return options.timeoutMs;
  if (!warnedTimeout) {
    warnedTimeout = true;
    process.emitWarning('the wait option "timeout_ms" is deprecated: use "timeoutMs"', { type: "DeprecationWarning", code: "MAILSTOP_TIMEOUT_MS" });
  }
  return options.timeout_ms;
}
