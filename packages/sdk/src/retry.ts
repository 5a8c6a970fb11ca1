import { MailstopError } from "./errors.js";

/**
 * The POST routes that are idempotent by the spec, so a retry cannot do the work twice:
 * creating an inbox (idempotent on its address), a run's inbox, fixtures (declarative), a
 * cleanup or an erasure (deleting what is already gone deletes nothing), a domain check, and
 * the wait (it only reads). Every GET, PUT, PATCH and DELETE is idempotent too. Not here:
 * creating a domain or a webhook, rotating a secret, a test event, a stream token.
 */
const IDEMPOTENT_POSTS = [
  /^\/v1\/inboxes$/,
  /^\/v1\/inboxes\/for-run$/,
  /^\/v1\/inboxes\/cleanup$/,
  /^\/v1\/fixtures\/ensure$/,
  /^\/v1\/messages\/wait$/,
  /^\/v1\/erasure$/,
  /^\/v1\/domains\/[^/]+\/verify$/,
];

export function isIdempotent(method: string, pathname: string): boolean {
  if (method !== "POST") return true;
  return IDEMPOTENT_POSTS.some((pattern) => pattern.test(pathname));
}

/** Statuses worth retrying unchanged: too many requests or waits, and an unavailable store or gateway. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export interface RetryPolicy {
  maxAttempts: number;
  maxRetryDelayMs: number;
}

/** Exponential backoff with jitter when the server names no delay: 250 ms, 500 ms, 1 s… */
function backoffMs(attempt: number): number {
  return Math.round(250 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
}

/**
 * A fetch that retries an idempotent request on a retryable failure, at most `maxAttempts`
 * times in all, waiting what the server asks (`retry_after_seconds`, the same as
 * `Retry-After`) or backing off. Its last failure is returned (or thrown) as it came, so
 * the caller turns it into a typed error.
 */
export function retryingFetch(base: typeof fetch, policy: RetryPolicy): (request: Request) => Promise<Response> {
  return async (request) => {
    const retries = isIdempotent(request.method, new URL(request.url).pathname) ? policy.maxAttempts : 1;
    // A body can be read once: keep a pristine copy for each further attempt.
    const template = retries > 1 ? request.clone() : request;
    for (let attempt = 1; ; attempt++) {
      const current = attempt === 1 ? request : template.clone();
      let response: Response;
      try {
        response = await base(current);
      } catch (cause) {
        // Refused before sending (no key): nothing to retry.
        if (cause instanceof MailstopError) throw cause;
        if (attempt >= retries || request.signal.aborted) throw MailstopError.network(cause, request.url);
        await sleep(backoffMs(attempt), request.signal);
        continue;
      }
      if (attempt >= retries || !RETRY_STATUSES.has(response.status)) return response;
      const delayMs = await serverDelayMs(response);
      if (delayMs !== undefined && delayMs > policy.maxRetryDelayMs) return response;
      await response.body?.cancel();
      await sleep(delayMs ?? backoffMs(attempt), request.signal);
    }
  };
}

/** The delay the server asked for, in ms: the envelope's `retry_after_seconds`, else `Retry-After`. */
async function serverDelayMs(response: Response): Promise<number | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { retry_after_seconds?: unknown } };
    const seconds = body.error?.retry_after_seconds;
    if (typeof seconds === "number" && seconds >= 0) return seconds * 1000;
  } catch {
    // Not JSON (a gateway's page): fall back to the header.
  }
  const header = Number(response.headers.get("retry-after") ?? Number.NaN);
  return Number.isFinite(header) && header >= 0 ? header * 1000 : undefined;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
