import { adminNotFound } from "@mailstop/core";
import { audited, revokeApiKey } from "@mailstop/db";
import { adminSource } from "../../audit/audit-source";
import { type ApiDeps, adminRoute } from "../../deps";

/** DELETE /admin/v1/api-keys/{id}: the key fails on its next request. Audited (`api_key.revoked`) once, by the call that revoked it. */
export const revokeApiKeyRoute = ({ db }: ApiDeps) =>
  adminRoute("revokeApiKey", async ({ params, requestId }) => {
    const revoked = await audited(
      db,
      (trx) => revokeApiKey(trx, params.id),
      (key) => (key?.revokedNow ? { projectId: key.projectId, source: adminSource({ requestId }), action: "api_key.revoked", target: { type: "api_key", id: params.id } } : null),
    );
    if (revoked === null) throw adminNotFound("api key", params.id);
    return { status: 200, body: { id: params.id, revoked: true } };
  });
