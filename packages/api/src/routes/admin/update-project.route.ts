import { audited, updateProjectLimits } from "@mailstop/db";
import { adminSource } from "../../audit/audit-source";
import { announceCredentialChange } from "../../auth/credential-changes";
import { type ApiDeps, adminRoute } from "../../deps";
import { projectWithLimitsView } from "./admin-views";
import { projectNotFound } from "./admin-not-found";

/**
 * PATCH /admin/v1/projects/{id}: the project's limits; a field left out stays, null removes it.
 * They apply to the project's next request here, and within a second on every other instance
 * (announced before this answers). Audited as `project.limits_updated` with the fields the
 * request set, unless it set none.
 */
export const updateProjectRoute = (deps: ApiDeps) =>
  adminRoute("updateProject", async ({ params, body, requestId }) => {
    const set = Object.fromEntries(Object.entries(body.limits).filter(([, value]) => value !== undefined));
    const project = await audited(
      deps.db,
      (trx) =>
        updateProjectLimits(trx, params.id, {
          maxConcurrentWaits: body.limits.max_concurrent_waits,
          ingestCeiling: body.limits.ingest_ceiling,
          monthlyMessages: body.limits.monthly_messages,
          rateLimitRead: body.limits.rate_limit_read,
          rateLimitWrite: body.limits.rate_limit_write,
        }),
      (updated) =>
        updated === null || Object.keys(set).length === 0
          ? null
          : { projectId: updated.id, source: adminSource({ requestId }), action: "project.limits_updated", target: { type: "project", id: updated.id }, details: { limits: set } },
    );
    if (project === null) throw projectNotFound(params.id);
    await announceCredentialChange(deps, { scope: "project", id: project.id });
    return { status: 200, body: projectWithLimitsView(project) };
  });
