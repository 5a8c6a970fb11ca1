import type { Webhook, WebhookAttempt } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

type WebhookView = PublicComponents["schemas"]["Webhook"];
type WebhookWithSecretView = PublicComponents["schemas"]["WebhookWithSecret"];
type WebhookAttemptView = PublicComponents["schemas"]["WebhookAttempt"];

/** The endpoint as the API shows it: never its secret, sealed or not. */
export function toWebhookView(webhook: Webhook): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    // Stored only from validated requests, whose events exclude `webhook.test`.
    events: webhook.events as WebhookView["events"],
    description: webhook.description,
    enabled: webhook.enabled,
    disabled_reason: webhook.disabledReason,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

/** The endpoint with its secret in clear: the answer of create and rotate-secret only. */
export function toWebhookWithSecretView(webhook: Webhook, secret: string): WebhookWithSecretView {
  return { ...toWebhookView(webhook), secret };
}

/** One line of the attempt log. */
export function toWebhookAttemptView(attempt: WebhookAttempt): WebhookAttemptView {
  return {
    id: attempt.id,
    webhook_id: attempt.webhook_id,
    event_id: attempt.event_id,
    event_type: attempt.event_type,
    attempt: attempt.attempt,
    status: attempt.status,
    response_status: attempt.response_status,
    response_body: attempt.response_body,
    error: attempt.error,
    duration_ms: attempt.duration_ms,
    attempted_at: attempt.attempted_at.toISOString(),
    next_attempt_at: attempt.next_attempt_at?.toISOString() ?? null,
  };
}
