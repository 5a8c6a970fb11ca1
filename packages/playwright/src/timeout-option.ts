// The fixture's timeout options: `timeoutMs`, the one name across the SDK, the fixture and the
// CLI (`--timeout`); the older spellings still work, each warned once per worker.

/** Reads `timeoutMs`, else the deprecated spelling `old`, which it warns of with `warning` once per worker. */
function timeoutMsOr<Old extends string>(old: Old, warning: string) {
  let warned = false;
  return (options: { timeoutMs?: number | undefined } & { [K in Old]?: number | undefined }): number | undefined => {
    const deprecated: number | undefined = options[old];
    if (options.timeoutMs !== undefined || deprecated === undefined) return options.timeoutMs;
    if (!warned) {
      warned = true;
      process.emitWarning(warning, { type: "DeprecationWarning", code: "MAILSTOP_TIMEOUT_MS" });
    }
    return deprecated;
  };
}

/** The fixture's default wait: `timeoutMs`, else the deprecated `waitTimeoutMs` (warned once per worker). */
export const defaultTimeoutMs = timeoutMsOr("waitTimeoutMs", 'mailstopOptions "waitTimeoutMs" is deprecated: use "timeoutMs"');

/** One wait's `timeoutMs`, else the deprecated `timeout_ms` (warned once per worker). */
export const waitTimeoutMs = timeoutMsOr("timeout_ms", 'the wait option "timeout_ms" is deprecated: use "timeoutMs"');
