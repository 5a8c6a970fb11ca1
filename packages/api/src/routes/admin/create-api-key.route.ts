import { findProjectById } from "@mailstop/db";
import { adminSource } from "../../audit/audit-source";
import { type ApiDeps, adminRoute } from "../../deps";
import { issueApiKey } from "../../provisioning/credentials";
import { projectNotFound } from "./admin-not-found";

/** POST /admin/v1/projects/{id}/api-keys: the key is in this response and nowhere else. */
export const createApiKeyRoute = ({ db }: ApiDeps) =>
  adminRoute("createApiKey", async ({ params, body, requestId }) => {
    const project = await findProjectById(db, params.id);
    if (project === null) throw projectNotFound(params.id);
    const issued = await issueApiKey(db, project.id, {
      ...(body.scopes === undefined ? {} : { scopes: body.scopes }),
      ...(body.environment === undefined ? {} : { environment: body.environment }),
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    }, adminSource({ requestId }));
    return {
      status: 201,
      body: { id: issued.id, key: issued.key, scopes: issued.scopes, environment: issued.environment, expires_at: issued.expiresAt?.toISOString() ?? null },
    };
  });
