import { adminNotFound } from "@mailstop/core";
import { audited, revokeApiKey } from "@mailstop/db";
import { adminSource } from "../../audit/audit-source";
import { announceCredentialChange } from "../../auth/credential-changes";
import { type ApiDeps, adminRoute } from "../../deps";

/**
 * DELETE /admin/v1/api-keys/{id}: the key fails on its next request here, and within a second
 * on every other instance (announced before this answers). Audited (`api_key.revoked`) once,
 * by the call that revoked it; announced by every call, so a retry announces again.
 */
export const revokeApiKeyRoute = (deps: ApiDeps) =>
  adminRoute("revokeApiKey", async ({ params, requestId }) => {
    const revoked = await audited(
      deps.db,
      (trx) => revokeApiKey(trx, params.id),
      (key) => (key?.revokedNow ? { projectId: key.projectId, source: adminSource({ requestId }), action: "api_key.revoked", target: { type: "api_key", id: params.id } } : null),
    );
    if (revoked === null) throw adminNotFound("api key", params.id);
    await announceCredentialChange(deps, { scope: "api_key", id: params.id });
    return { status: 200, body: { id: params.id, revoked: true } };
  });
