import { ADMIN_ACTOR, type AuditSource } from "@mailstop/core";
import type { AuthContext } from "@mailstop/http";

/** A public route's changes are the calling key's, in its request. */
export const keySource = (ctx: { auth: AuthContext; requestId: string }): AuditSource => ({ actor: { type: "api_key", id: ctx.auth.key.id }, requestId: ctx.requestId });

/** An admin route's changes are the operator's (the admin API, or the CLI that calls it). */
export const adminSource = (ctx: { requestId: string }): AuditSource => ({ actor: ADMIN_ACTOR, requestId: ctx.requestId });
