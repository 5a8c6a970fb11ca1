/** The origin used when neither the options nor `MAILSTOP_API_URL` name one (the monolith's default port). */
export const DEFAULT_API_URL = "http://localhost:8025";

export interface MailstopOptions {
  /** The API origin; default `MAILSTOP_API_URL`, then http://localhost:8025. */
  baseUrl?: string;
  /** An `is_test_…` or `is_live_…` key; default `MAILSTOP_API_KEY`. */
  apiKey?: string;
  /** Attempts per idempotent call on a retryable failure (429, 503, no answer), the first included; default 3. 1 disables retries. */
  maxAttempts?: number;
  /** A retry the server asks to wait longer than this for is not made: the error is thrown; default 30000. */
  maxRetryDelayMs?: number;
  /** The fetch to use (a test's, a proxy agent's); default the global fetch. */
  fetch?: typeof fetch;
}

export interface ResolvedOptions {
  baseUrl: string;
  apiKey: string | undefined;
  maxAttempts: number;
  maxRetryDelayMs: number;
  fetch: typeof fetch;
}

/**
 * Options first, then the environment every mailstop client reads (docs/decisions.md
 * "SDK"): an SDK reads its caller's environment, which the service's config package
 * cannot do for it.
 */
export function resolveOptions(options: MailstopOptions = {}, env: Record<string, string | undefined> = globalThis.process?.env ?? {}): ResolvedOptions {
  const baseUrl = (options.baseUrl ?? nonEmpty(env.MAILSTOP_API_URL) ?? DEFAULT_API_URL).replace(/\/+$/, "");
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  return {
    baseUrl,
    apiKey: options.apiKey ?? nonEmpty(env.MAILSTOP_API_KEY),
    maxAttempts,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
