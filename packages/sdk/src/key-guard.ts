import { MailstopError } from "./errors.js";

/**
 * What to do without a key, said where the mistake is made: the server's own answer names the
 * `Authorization` header, which a user of the SDK never sets (docs/decisions.md "Installable
 * packages and the newcomer's path (issue 31)").
 */
export const MISSING_KEY_REASON =
  "No mailstop API key: set MAILSTOP_API_KEY or pass the apiKey option (new Mailstop({ apiKey })). " +
  "A local mailstop makes one with `mailstop keys create --project local`.";

export function missingKeyError(): MailstopError {
  return new MailstopError({ code: "unauthenticated", reason: MISSING_KEY_REASON, retryable: false, status: 0 });
}

/**
 * A fetch that refuses, before any request, a call to an authenticated route (`/v1/…`) when no
 * key is configured. The unauthenticated routes (health, the OpenAPI document, articles) still go.
 */
export function keyGuardedFetch(base: typeof fetch, baseUrl: string, apiKey: string | undefined): typeof fetch {
  if (apiKey !== undefined) return base;
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, "");
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.slice(prefix.length).startsWith("/v1/")) return Promise.reject(missingKeyError());
    return base(input, init);
  };
}
