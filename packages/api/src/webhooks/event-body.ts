import type { WebhookEventType } from "@mailstop/db";

/** The largest body a webhook event may have: a receiver never gets a message's body, only its frame. */
export const EVENT_BODY_MAX_BYTES = 20_000;

/**
 * The JSON every delivery of an event POSTs: `{ type, timestamp, data }`, rendered once and
 * stored with the delivery, so every retry sends (and signs) the same bytes.
 */
export function eventBody(type: WebhookEventType, data: Record<string, unknown>, at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}
