import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new endpoint secret: `whsec_` and 32 random bytes in base64, the Standard Webhooks form. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * The Standard Webhooks headers of one attempt, signed by the npm `standardwebhooks` package
 * itself so any receiver library verifies them. With two secrets (the 24 h overlap after a
 * rotation) the signature header carries both `v1,` signatures, space-separated.
 */
export function signedHeaders(secrets: readonly string[], eventId: string, attemptedAt: Date, body: string): Record<string, string> {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(attemptedAt.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, attemptedAt, body)).join(" "),
  };
}
