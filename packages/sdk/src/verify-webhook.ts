import { Webhook, WebhookVerificationError } from "standardwebhooks";

export { WebhookVerificationError };

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's `whsec_…` secret and returns its parsed event.
 * Pass the body exactly as received (a string or the raw bytes), never re-serialised JSON.
 * Throws {@link WebhookVerificationError} for a bad signature or a timestamp over 5 minutes off.
 * During the 24 hours after a rotation either secret verifies (both sign).
 */
export function verifyWebhook<T = unknown>(payload: string | Uint8Array, headers: HeaderBag, secret: string): T {
  const body = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
  return new Webhook(secret).verify(body, lowerCased(headers)) as T;
}

/** Node's and fetch's header shapes as the plain lower-case record standardwebhooks reads. */
function lowerCased(headers: HeaderBag): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, key) => (out[key.toLowerCase()] = value));
    return out;
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(" ") : value;
  }
  return out;
}
