import { newId } from "@mailstop/core";
import { type AttemptRecord, type ClaimedDelivery, type Db, claimDelivery, findMessageEventSource, recordAttempt } from "@mailstop/db";
import type { Config } from "@mailstop/config";
import type { Logger } from "@mailstop/logging";
import type { DeliverWebhookJob } from "@mailstop/messaging";
import { type AttemptOutcome, BlockedTarget, DEFAULT_RETRY_SCHEDULE_S, DELIVERY_TIMEOUT_MS, type SecretBox, type TargetGuard, deliver, nextAttemptDelayMs, signedHeaders } from "@mailstop/webhooks";
import { toStreamMessage } from "../stream/stream-message";
import { EVENT_BODY_MAX_BYTES, eventBody } from "./event-body";
import type { Metrics } from "@mailstop/metrics";

export interface DeliveryDeps {
  db: Db;
  config: Config;
  logger: Logger;
  secrets: SecretBox;
  targets: TargetGuard;
  /** Deliveries by outcome; none in tests that run the job alone. */
  metrics?: Metrics;
  /** This process's relay, kicked when an attempt schedules the next one: it then sleeps until that one is due. */
  relay?: { kick(): void };
}

/**
 * How long a delivery is claimed by the worker attempting it: the attempt's 15 s and room to
 * record it. A worker that dies mid-attempt lets the claim lapse; the relay then queues it again.
 */
export const DELIVERY_CLAIM_MS = DELIVERY_TIMEOUT_MS + 15_000;

/**
 * A message event's body, rendered at its first attempt from the stored message: the event
 * stream's `message` frame plus the inbox's address and the message's API URL. Null when the
 * message was deleted or erased meanwhile: an event never carries what its owner removed.
 */
async function renderMessageEvent(deps: DeliveryDeps, delivery: ClaimedDelivery): Promise<string | null> {
  const source = delivery.subjectId === null ? null : await findMessageEventSource(deps.db, delivery.webhook.projectId, delivery.subjectId);
  if (source === null) return null;
  const data = { ...toStreamMessage(source), inbox: source.inbox_address, url: `${deps.config.http.publicUrl}/v1/messages/${source.id}` };
  const body = eventBody(delivery.eventType, data, delivery.raisedAt);
  if (Buffer.byteLength(body) <= EVENT_BODY_MAX_BYTES) return body;
  // Links and codes are what can grow; a receiver that needs them all reads the message.
  return eventBody(delivery.eventType, { ...data, links: [], codes: [], truncated: true }, delivery.raisedAt);
}

/** The secrets an attempt signs with: the current one, and the one before a rotation while its overlap lasts. */
function signingSecrets(secrets: SecretBox, delivery: ClaimedDelivery, at: Date): string[] {
  const { webhook } = delivery;
  const current = secrets.open(webhook.secretSealed);
  const previousValid = webhook.previousSecretSealed !== null && webhook.previousSecretUntil !== null && webhook.previousSecretUntil > at;
  return previousValid ? [current, secrets.open(webhook.previousSecretSealed!)] : [current];
}

/** An attempt that sent nothing: refused by the guard, or dropped. */
const unsent = (error: string): AttemptOutcome => ({ ok: false, status: null, body: null, error, durationMs: 0 });

/**
 * The deliver-webhook job: claims the delivery (nothing when another worker has it, or it is
 * no longer due), renders its body on the first attempt, checks the target again (its DNS may
 * have changed since the endpoint was saved), signs, POSTs once, and records the attempt with
 * when the next one runs. Every attempt of an event sends the same `webhook-id` and body.
 */
export function deliverWebhookJob(deps: DeliveryDeps) {
  const schedule = deps.config.webhooks.retryScheduleSeconds ?? DEFAULT_RETRY_SCHEDULE_S;
  return async (job: DeliverWebhookJob): Promise<void> => {
    const delivery = await claimDelivery(deps.db, { eventId: job.event_id, webhookId: job.webhook_id }, DELIVERY_CLAIM_MS);
    if (delivery === null) return;
    const attempt = delivery.attempts + 1;
    const attemptedAt = new Date();
    const record = async (body: string | null, outcome: AttemptOutcome, retries: boolean) => {
      const delayMs = outcome.ok || !retries ? null : nextAttemptDelayMs(schedule, attempt);
      deps.metrics?.webhookDelivery(outcome.ok ? "delivered" : !retries ? "dropped" : delayMs === null ? "failed" : "retried");
      const entry: AttemptRecord = {
        id: newId("webhookAttempt"),
        attempt,
        ok: outcome.ok,
        responseStatus: outcome.status,
        responseBody: outcome.body,
        error: outcome.error,
        durationMs: outcome.durationMs,
        attemptedAt,
        nextAttemptAt: delayMs === null ? null : new Date(attemptedAt.getTime() + outcome.durationMs + delayMs),
      };
      // A dropped delivery (sent nothing, retries nothing) does not count against the endpoint.
      await recordAttempt(deps.db, delivery, body, entry, retries ? deps.config.webhooks.disableAfter : null);
      if (entry.nextAttemptAt !== null) deps.relay?.kick();
    };

    // Disabled since the event was raised: dropped, except the test an owner asks for.
    if (!delivery.webhook.enabled && delivery.eventType !== "webhook.test") return record(delivery.body, unsent("webhook_disabled"), false);
    const body = delivery.body ?? (await renderMessageEvent(deps, delivery));
    if (body === null) return record(null, unsent("message_gone"), false);

    let outcome: AttemptOutcome;
    try {
      const target = await deps.targets.resolve(delivery.webhook.url);
      outcome = await deliver(target, signedHeaders(signingSecrets(deps.secrets, delivery, attemptedAt), delivery.eventId, attemptedAt, body), body);
    } catch (error) {
      if (!(error instanceof BlockedTarget)) throw error;
      outcome = unsent(error.reason === "unresolvable" ? `unresolvable: ${error.message}` : error.reason);
    }
    await record(body, outcome, true);
    deps.logger.info(
      { webhook_id: delivery.webhook.id, event_id: delivery.eventId, event_type: delivery.eventType, attempt, ok: outcome.ok, status: outcome.status, error: outcome.error, duration_ms: outcome.durationMs },
      "webhook attempt",
    );
  };
}
