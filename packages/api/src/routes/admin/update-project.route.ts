import { updateProjectLimits } from "@mailstop/db";
import { type ApiDeps, adminRoute } from "../../deps";
import { projectWithLimitsView } from "./admin-views";
import { projectNotFound } from "./admin-not-found";

/** PATCH /admin/v1/projects/{id}: the project's limits; a field left out stays, null removes it. */
export const updateProjectRoute = ({ db }: ApiDeps) =>
  adminRoute("updateProject", async ({ params, body }) => {
    const project = await updateProjectLimits(db, params.id, {
      maxConcurrentWaits: body.limits.max_concurrent_waits,
      ingestCeiling: body.limits.ingest_ceiling,
      monthlyMessages: body.limits.monthly_messages,
      rateLimitRead: body.limits.rate_limit_read,
      rateLimitWrite: body.limits.rate_limit_write,
    });
    if (project === null) throw projectNotFound(params.id);
    return { status: 200, body: projectWithLimitsView(project) };
  });
