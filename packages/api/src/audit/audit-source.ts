import { ADMIN_ACTOR, type AuditSource } from "@mailstop/core";
import { type AuditEntry, type Db, audited } from "@mailstop/db";
import type { AuthContext } from "@mailstop/http";

/** A public route's changes are the calling key's, in its request. */
export const keySource = (ctx: { auth: AuthContext; requestId: string }): AuditSource => ({ actor: { type: "api_key", id: ctx.auth.key.id }, requestId: ctx.requestId });

/** An admin route's changes are the operator's (the admin API, or the CLI that calls it). */
export const adminSource = (ctx: { requestId: string }): AuditSource => ({ actor: ADMIN_ACTOR, requestId: ctx.requestId });

/**
 * Runs a public route's change and audits it in one transaction (see `audited`), as the calling
 * key's change to the key's project: `entryOf` says what changed, or null when nothing did.
 */
export function auditedByKey<T>(
  db: Db,
  ctx: { auth: AuthContext; requestId: string },
  change: (trx: Db) => Promise<T>,
  entryOf: (result: T) => Omit<AuditEntry, "projectId" | "source"> | null,
): Promise<T> {
  return audited(db, change, (result) => {
    const entry = entryOf(result);
    return entry === null ? null : { projectId: ctx.auth.project.id, source: keySource(ctx), ...entry };
  });
}
