import { type Selectable, sql } from "kysely";
import type { Db } from "../database";
import { inTransaction } from "../database";
import { systemSource } from "@mailstop/core";
import { recordAudit } from "./audit.repository";
import { camelCaseRow } from "./camel-case-row";
import { type IdPage, newestFirst } from "./id-page";
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEventType, WebhooksTable } from "../tables/webhook.table";

export type { WebhookEventType } from "../tables/webhook.table";

export interface Webhook {
  id: string;
  projectId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  secretSealed: string;
  /** The secret before the last rotation, still signing until `previousSecretUntil`. */
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

// The failing streak is the delivery loop's count (recordAttempt), not part of the endpoint.
function toWebhook({ failing_streak: _, ...row }: Selectable<WebhooksTable>): Webhook {
  return camelCaseRow(row);
}

export async function insertWebhook(
  db: Db,
  input: { id: string; projectId: string; url: string; events: WebhookEventType[]; description: string | null; secretSealed: string },
): Promise<Webhook> {
  const row = await db
    .insertInto("webhooks")
    .values({ id: input.id, project_id: input.projectId, url: input.url, events: input.events, description: input.description, secret_sealed: input.secretSealed })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toWebhook(row);
}

/** The project's endpoint with that id; another project's is invisible. */
export async function findWebhook(db: Db, projectId: string, id: string): Promise<Webhook | null> {
  const row = await db.selectFrom("webhooks").selectAll().where("project_id", "=", projectId).where("id", "=", id).executeTakeFirst();
  return row ? toWebhook(row) : null;
}

export async function listWebhooks(db: Db, projectId: string, page: IdPage): Promise<Webhook[]> {
  return (await newestFirst(db.selectFrom("webhooks").selectAll().where("project_id", "=", projectId), page).execute()).map(toWebhook);
}

export interface WebhookPatch {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  enabled?: boolean;
}

/** Applies a PATCH; enabling clears `disabled_reason` and the failing streak. */
export async function updateWebhook(db: Db, projectId: string, id: string, patch: WebhookPatch): Promise<Webhook | null> {
  const row = await db
    .updateTable("webhooks")
    .set({
      ...(patch.url === undefined ? {} : { url: patch.url }),
      ...(patch.events === undefined ? {} : { events: patch.events }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
      ...(patch.enabled === true ? { disabled_reason: null, failing_streak: 0 } : {}),
      updated_at: new Date(),
    })
    .where("project_id", "=", projectId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row ? toWebhook(row) : null;
}

export async function deleteWebhook(db: Db, projectId: string, id: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    // The deliveries first, then the endpoint: the order recordAttempt locks them in (its
    // delivery row, then the endpoint's row through the attempt's foreign key). The cascade
    // alone took the endpoint's row first and deadlocked with an attempt being recorded, and
    // PostgreSQL aborted one of the two (a 500 for the DELETE, when it was the one).
    await trx.deleteFrom("webhook_deliveries").where("project_id", "=", projectId).where("webhook_id", "=", id).execute();
    const result = await trx.deleteFrom("webhooks").where("project_id", "=", projectId).where("id", "=", id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  });
}

/** Makes `secretSealed` the signing secret; the current one keeps signing beside it until `overlapUntil`. */
export async function rotateWebhookSecret(db: Db, projectId: string, id: string, secretSealed: string, overlapUntil: Date): Promise<Webhook | null> {
  const row = await db
    .updateTable("webhooks")
    .set((eb) => ({ previous_secret_sealed: eb.ref("secret_sealed"), previous_secret_until: overlapUntil, secret_sealed: secretSealed, updated_at: new Date() }))
    .where("project_id", "=", projectId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row ? toWebhook(row) : null;
}

export interface RaisedDelivery {
  eventId: string;
  webhookId: string;
}

/**
 * Records an event for every enabled endpoint of the project subscribed to its type (or for
 * the one endpoint `onlyWebhookId`, subscribed or not: a test event), in the caller's
 * transaction: the outbox row commits or rolls back with the change that raised it.
 */
export async function raiseWebhookEvent(
  db: Db,
  event: { projectId: string; eventId: string; type: WebhookEventType; body: string; onlyWebhookId?: string },
): Promise<RaisedDelivery[]> {
  let endpoints = db.selectFrom("webhooks").where("project_id", "=", event.projectId);
  endpoints =
    event.onlyWebhookId === undefined
      ? endpoints.where("enabled", "=", true).where(sql<boolean>`${event.type} = any(events)`)
      : endpoints.where("id", "=", event.onlyWebhookId);
  const rows = await db
    .insertInto("webhook_deliveries")
    .columns(["event_id", "webhook_id", "project_id", "event_type", "body"])
    .expression(endpoints.select([sql.lit(event.eventId).as("event_id"), "id", "project_id", sql.lit(event.type).as("event_type"), sql.lit(event.body).as("body")]))
    .onConflict((oc) => oc.doNothing())
    .returning(["event_id", "webhook_id"])
    .execute();
  return rows.map((row) => ({ eventId: row.event_id, webhookId: row.webhook_id }));
}

/**
 * Pending, due and not claimed, by the database's clock: the rows' defaults are `now()`, and a
 * JavaScript Date (whole milliseconds) can sort before a row stored a microsecond later.
 */
const isDue = sql<boolean>`state = 'pending' and next_attempt_at <= now() and (claimed_until is null or claimed_until < now())`;

export interface ClaimedDelivery {
  eventId: string;
  eventType: WebhookEventType;
  /** Null until the first attempt renders it (a message event: see subjectId). */
  body: string | null;
  /** What the event is about, when its body is rendered at the first attempt: a message id. */
  subjectId: string | null;
  /** When the event was raised: its body's `timestamp`. */
  raisedAt: Date;
  attempts: number;
  webhook: Webhook;
}

/**
 * Takes one due delivery for `claimMs`, so two workers (a job and the sweep, or two parsers)
 * never attempt it at once; a claim that lapses (its worker died) makes it due again.
 */
export async function claimDelivery(db: Db, delivery: RaisedDelivery, claimMs: number): Promise<ClaimedDelivery | null> {
  const claimed = await db
    .updateTable("webhook_deliveries")
    .set({ claimed_until: sql<Date>`now() + make_interval(secs => ${claimMs / 1000})` })
    .where("event_id", "=", delivery.eventId)
    .where("webhook_id", "=", delivery.webhookId)
    .where(isDue)
    .returning(["event_id", "event_type", "body", "subject_id", "created_at", "attempts"])
    .executeTakeFirst();
  if (claimed === undefined) return null;
  const webhook = await db.selectFrom("webhooks").selectAll().where("id", "=", delivery.webhookId).executeTakeFirst();
  if (webhook === undefined) return null;
  return {
    eventId: claimed.event_id,
    eventType: claimed.event_type,
    body: claimed.body,
    subjectId: claimed.subject_id,
    raisedAt: claimed.created_at,
    attempts: claimed.attempts,
    webhook: toWebhook(webhook),
  };
}

/** Deliveries due now and not claimed, oldest first: the sweep's backstop for a lost job. */
export async function dueDeliveries(db: Db, limit: number): Promise<RaisedDelivery[]> {
  const rows = await db
    .selectFrom("webhook_deliveries")
    .select(["event_id", "webhook_id"])
    .where(isDue)
    .orderBy("next_attempt_at")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ eventId: row.event_id, webhookId: row.webhook_id }));
}

/**
 * Milliseconds until the next pending delivery not due yet becomes due (a retry's time, a
 * `sim.delay` copy's visibility, a claim that lapses), by the database's clock; null when
 * there is none. Deliveries due now are left out: the relay has just queued them.
 */
export async function msUntilNextDelivery(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom("webhook_deliveries")
    .select(sql<number | null>`extract(epoch from min(greatest(next_attempt_at, claimed_until)) - now()) * 1000`.as("ms"))
    .where("state", "=", "pending")
    .where(sql<boolean>`greatest(next_attempt_at, claimed_until) > now()`)
    .executeTakeFirst();
  return row?.ms == null ? null : Math.ceil(Number(row.ms));
}

export interface AttemptRecord {
  id: string;
  attempt: number;
  ok: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
  /** When the next attempt runs; null when this was the last (succeeded, or the schedule is spent). */
  nextAttemptAt: Date | null;
}

/**
 * Whether a delivery's subject is still there to tell about: no subject (the event carries its
 * own body), or a message that is neither deleted nor erased.
 */
const subjectLive = sql<boolean>`(webhook_deliveries.subject_id is null or exists (
  select 1 from messages m where m.id = webhook_deliveries.subject_id and m.deleted_at is null))`;

/**
 * What an erasure leaves of these messages' webhook deliveries: no stored body, and no
 * receiver's answer in their attempts (a receiver may echo what it was sent). A pending one is
 * due at once, so its next attempt, finding the message gone, drops it (`message_gone`) instead
 * of sending it; the rows stay as the endpoint's history. Called in the erasure's transaction;
 * returns the pending ones, for the caller to dispatch once it has committed.
 */
export async function forgetMessageDeliveries(trx: Db, projectId: string, messageIds: readonly string[]): Promise<RaisedDelivery[]> {
  if (messageIds.length === 0) return [];
  const forgotten = await trx
    .updateTable("webhook_deliveries")
    .set({ body: null, next_attempt_at: sql<Date>`case when state = 'pending' then now() else next_attempt_at end` })
    .where("project_id", "=", projectId)
    .where("subject_id", "in", [...messageIds])
    .returning(["event_id", "webhook_id", "state"])
    .execute();
  const events = [...new Set(forgotten.map((row) => row.event_id))];
  if (events.length > 0) await trx.updateTable("webhook_attempts").set({ response_body: null }).where("project_id", "=", projectId).where("event_id", "in", events).execute();
  return forgotten.filter((row) => row.state === "pending").map((row) => ({ eventId: row.event_id, webhookId: row.webhook_id }));
}

/**
 * Writes an attempt to the log and moves its delivery on, in one transaction: a success ends
 * it and resets the endpoint's failing streak; a failure with attempts left reschedules it; a
 * failure that spent the schedule ends it and, after `disableAfter` such events in a row,
 * disables the endpoint (`disabled_reason: "failing"`), recording `webhook.disabled` in the
 * project's audit trail (the service did it: actor `system`, `webhook-delivery`). `body` keeps what was signed, so
 * every retry sends the same bytes. `disableAfter` null: the delivery ends without counting
 * against the endpoint (it was dropped unsent: its message erased, or the endpoint disabled).
 */
export async function recordAttempt(db: Db, delivery: ClaimedDelivery, body: string | null, attempt: AttemptRecord, disableAfter: number | null): Promise<void> {
  const { webhook } = delivery;
  const exhausted = !attempt.ok && attempt.nextAttemptAt === null;
  await inTransaction(db, async (trx) => {
    // The delivery first: an erasure that ran during the attempt has scrubbed the row, and
    // neither the body nor the receiver's answer may be written back (subjectLive decides,
    // under the row's lock, which an erasure waits for or has released).
    const moved = await trx
      .updateTable("webhook_deliveries")
      .set({
        body: sql<string | null>`case when ${subjectLive} then ${body}::text end`,
        attempts: attempt.attempt,
        claimed_until: null,
        state: attempt.ok ? "succeeded" : exhausted ? "failed" : "pending",
        ...(attempt.nextAttemptAt === null ? {} : { next_attempt_at: attempt.nextAttemptAt }),
      })
      .where("event_id", "=", delivery.eventId)
      .where("webhook_id", "=", webhook.id)
      .returning(subjectLive.as("live"))
      .executeTakeFirst();
    // Gone with its endpoint, deleted while the attempt was out: nothing is left to record it
    // against (the attempt's row would refer to a deleted endpoint).
    if (moved === undefined) return;
    await trx
      .insertInto("webhook_attempts")
      .values({
        id: attempt.id,
        webhook_id: webhook.id,
        project_id: webhook.projectId,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        attempt: attempt.attempt,
        status: attempt.ok ? "succeeded" : "failed",
        response_status: attempt.responseStatus,
        response_body: moved?.live === true ? attempt.responseBody : null,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        attempted_at: attempt.attemptedAt,
        next_attempt_at: attempt.nextAttemptAt,
      })
      .execute();
    if (attempt.ok) await trx.updateTable("webhooks").set({ failing_streak: 0 }).where("id", "=", webhook.id).execute();
    else if (exhausted && disableAfter !== null) {
      // Locked first, so the audit row is written by the one attempt that disabled it. FOR NO
      // KEY UPDATE, the lock the UPDATE below takes anyway: FOR UPDATE would conflict with the
      // KEY SHARE lock every concurrent attempt's insert holds through its foreign key to this
      // row, and two final attempts of one endpoint deadlocked (a parser's attempt rolled back
      // and was sent again when its claim lapsed).
      const before = await trx.selectFrom("webhooks").select("enabled").where("id", "=", webhook.id).forNoKeyUpdate().executeTakeFirst();
      const after = await trx
        .updateTable("webhooks")
        .set((eb) => ({
          failing_streak: eb("failing_streak", "+", 1),
          enabled: sql<boolean>`case when failing_streak + 1 >= ${disableAfter} then false else enabled end`,
          disabled_reason: sql<string | null>`case when failing_streak + 1 >= ${disableAfter} then 'failing' else disabled_reason end`,
        }))
        .where("id", "=", webhook.id)
        .returning(["enabled", "failing_streak"])
        .executeTakeFirst();
      if (before?.enabled === true && after?.enabled === false) {
        await recordAudit(trx, {
          projectId: webhook.projectId,
          source: systemSource("webhook-delivery"),
          action: "webhook.disabled",
          target: { type: "webhook", id: webhook.id },
          details: { disabled_reason: "failing", failed_events: after.failing_streak },
        });
      }
    }
  });
}

export type WebhookAttempt = Selectable<WebhookAttemptsTable>;

/** The endpoint's attempt log, newest first (attempt ids are time-ordered), keyset-paged. */
export async function listWebhookAttempts(db: Db, projectId: string, webhookId: string, page: IdPage): Promise<WebhookAttempt[]> {
  return newestFirst(db.selectFrom("webhook_attempts").selectAll().where("project_id", "=", projectId).where("webhook_id", "=", webhookId), page).execute();
}

export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
