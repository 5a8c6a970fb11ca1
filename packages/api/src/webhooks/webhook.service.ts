import { type AuditSource, newId, redactUrl } from "@mailstop/core";
import { type AuditEntry, type Db, type Webhook, audited, findWebhook, insertWebhook, raiseWebhookEvent, rotateWebhookSecret, updateWebhook } from "@mailstop/db";
import { type PublicComponents, invalidRequest } from "@mailstop/openapi";
import { BlockedTarget, type SecretBox, type TargetGuard, newWebhookSecret } from "@mailstop/webhooks";
import type { Logger } from "@mailstop/logging";
import type { JobQueue } from "@mailstop/messaging";
import type { ApiDeps } from "../deps";
import { notFoundOnProject, requireOnProject } from "../project-resource";
import { eventBody } from "./event-body";
import { dispatchCommitted } from "./relay";

type CreateWebhookRequest = PublicComponents["schemas"]["CreateWebhookRequest"];
type UpdateWebhookRequest = PublicComponents["schemas"]["UpdateWebhookRequest"];

/** How long the secret before a rotation keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const webhookNotFound = (reference: string) => notFoundOnProject("webhook", reference);

/** The project's endpoint with that id, or `webhook_not_found` (also for another project's). */
export function requireWebhook(db: Db, projectId: string, id: string): Promise<Webhook> {
  return requireOnProject("webhook", id, () => findWebhook(db, projectId, id));
}

/**
 * Refuses a URL deliveries could not be made to: 400 `invalid_request` at `/url` with
 * `details.reason` `unsupported_scheme`, or `blocked_address` for a host that resolves to a
 * refused address or to none (nothing checked can be reached). Delivery checks again.
 */
async function checkTarget(targets: TargetGuard, url: string): Promise<void> {
  if (!URL.canParse(url)) invalidRequest([{ in: "body", path: "/url", message: "is not a URL" }]);
  try {
    await targets.resolve(url);
  } catch (error) {
    if (!(error instanceof BlockedTarget)) throw error;
    const reason = error.reason === "unsupported_scheme" ? "unsupported_scheme" : "blocked_address";
    invalidRequest([{ in: "body", path: "/url", message: error.message }], `Webhooks may not target this URL: ${error.message}.`, { reason });
  }
}

/**
 * The audit entry of a change to an endpoint, or null when `webhook` is null (it was not there).
 * A URL in `details` is written as {@link redactUrl} shows it: the trail is read with
 * `usage:read`, which must not reveal a receiver's credentials.
 */
export function webhookAudit(source: AuditSource, action: AuditEntry["action"], webhook: { id: string; projectId: string } | null, details?: Record<string, unknown>): AuditEntry | null {
  return webhook === null ? null : { projectId: webhook.projectId, source, action, target: { type: "webhook", id: webhook.id }, ...(details === undefined ? {} : { details }) };
}

/** Registers an endpoint (audited as `webhook.created`); its secret is returned in clear here and stored only sealed. */
export async function createWebhook(
  db: Db,
  tools: ApiDeps["webhooks"],
  projectId: string,
  request: CreateWebhookRequest,
  source: AuditSource,
): Promise<{ webhook: Webhook; secret: string }> {
  await checkTarget(tools.targets, request.url);
  const secret = newWebhookSecret();
  const input = { id: newId("webhook"), projectId, url: request.url, events: request.events, description: request.description ?? null, secretSealed: tools.secrets.seal(secret) };
  const webhook = await audited(
    db,
    (trx) => insertWebhook(trx, input),
    (created) => webhookAudit(source, "webhook.created", created, { url: redactUrl(created.url), events: created.events }),
  );
  return { webhook, secret };
}

/** Applies a PATCH (audited as `webhook.updated`, naming the fields it set); a new URL passes the guard first. */
export async function patchWebhook(db: Db, targets: TargetGuard, projectId: string, id: string, patch: UpdateWebhookRequest, source: AuditSource): Promise<Webhook> {
  await requireWebhook(db, projectId, id);
  if (patch.url !== undefined) await checkTarget(targets, patch.url);
  const updated = await audited(
    db,
    (trx) => updateWebhook(trx, projectId, id, patch),
    (webhook) => webhookAudit(source, "webhook.updated", webhook, { changes: patch.url === undefined ? patch : { ...patch, url: redactUrl(patch.url) } }),
  );
  // Deleted since it was found.
  return updated ?? notFound(id);
}

/** A new signing secret (audited as `webhook.secret_rotated`); the current one keeps signing beside it for {@link SECRET_OVERLAP_MS}. */
export async function rotateSecret(db: Db, secrets: SecretBox, projectId: string, id: string, source: AuditSource): Promise<{ webhook: Webhook; secret: string }> {
  const webhook = await requireWebhook(db, projectId, id);
  const secret = newWebhookSecret();
  const overlapUntil = new Date(Date.now() + SECRET_OVERLAP_MS);
  const rotated = await audited(
    db,
    (trx) => rotateWebhookSecret(trx, projectId, webhook.id, secrets.seal(secret), overlapUntil),
    (done) => webhookAudit(source, "webhook.secret_rotated", done, { previous_secret_valid_until: overlapUntil.toISOString() }),
  );
  return { webhook: rotated ?? notFound(id), secret };
}

/**
 * Queues a `webhook.test` event to this endpoint alone, subscribed or not, enabled or not (a
 * user checks a receiver they just fixed before enabling it again); returns its event id.
 */
export async function queueTestEvent(deps: { db: Db; queue: JobQueue; logger: Logger }, projectId: string, id: string): Promise<string> {
  const { db } = deps;
  const webhook = await requireWebhook(db, projectId, id);
  const eventId = newId("webhookEvent");
  const body = eventBody("webhook.test", { webhook_id: webhook.id, url: webhook.url }, new Date());
  const raised = await raiseWebhookEvent(db, { projectId, eventId, type: "webhook.test", body, onlyWebhookId: webhook.id });
  if (raised.length === 0) notFound(id);
  await dispatchCommitted(deps, raised);
  return eventId;
}

function notFound(id: string): never {
  throw webhookNotFound(id);
}
