import { adminNotFound } from "@mailstop/core";
import { revokeApiKey } from "@mailstop/db";
import { type ApiDeps, adminRoute } from "../../deps";

/** DELETE /admin/v1/api-keys/{id}: the key fails on its next request. */
export const revokeApiKeyRoute = ({ db }: ApiDeps) =>
  adminRoute("revokeApiKey", async ({ params }) => {
    if (!(await revokeApiKey(db, params.id))) throw adminNotFound("api key", params.id);
    return { status: 200, body: { id: params.id, revoked: true } };
  });
