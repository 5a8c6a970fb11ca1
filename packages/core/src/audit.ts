/**
 * The actions of the audit trail (docs/api.md and docs/decisions.md "Audit trail and
 * erasure"): each names the kind of thing changed and what happened to it.
 */
export const AUDIT_ACTIONS = [
  "inbox.created",
  "inbox.deleted",
  "inboxes.cleaned_up",
  "message.deleted",
  "messages.erased",
  "domain.created",
  "domain.verified",
  "domain.deleted",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "webhook.disabled",
  "api_key.created",
  "api_key.revoked",
  "smtp_credential.replaced",
  "project.limits_updated",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change: an API key (its id), the operator, or a named part of the service itself. */
export type AuditActor = { type: "api_key"; id: string } | { type: "admin"; id: "admin" } | { type: "system"; id: SystemActor };

/** The parts of the service that change things on their own (`keys-create`: `mailstop keys create` on the data itself). */
export type SystemActor = "webhook-delivery" | "domain-claims" | "first-start" | "capture-relay" | "keys-create";

/** The operator, through the admin API or the CLI that calls it. */
export const ADMIN_ACTOR: AuditActor = { type: "admin", id: "admin" };

/** Who and which request: what every audited change is told by its caller. */
export interface AuditSource {
  actor: AuditActor;
  /** The request the change came from; null for the service's own work. */
  requestId: string | null;
}

/** The service's own work, outside any request. */
export const systemSource = (id: SystemActor): AuditSource => ({ actor: { type: "system", id }, requestId: null });
