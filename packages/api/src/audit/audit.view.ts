import type { AuditEvent } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

type AuditEventView = PublicComponents["schemas"]["AuditEvent"];

export function toAuditEventView(event: AuditEvent): AuditEventView {
  return {
    id: event.id,
    at: event.at.toISOString(),
    actor: event.actor,
    action: event.action as AuditEventView["action"],
    target: event.target,
    request_id: event.requestId,
    details: event.details,
  };
}
