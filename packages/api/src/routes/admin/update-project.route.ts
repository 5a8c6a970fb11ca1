import { updateProjectLimits } from "@mailstop/db";
import { type ApiDeps, adminRoute } from "../../deps";
import { projectNotFound } from "./admin-not-found";

/** PATCH /admin/v1/projects/{id}: the project's limits. */
export const updateProjectRoute = ({ db }: ApiDeps) =>
  adminRoute("updateProject", async ({ params, body }) => {
    const project = await updateProjectLimits(db, params.id, {
      maxConcurrentWaits: body.limits.max_concurrent_waits,
      ingestCeiling: body.limits.ingest_ceiling,
    });
    if (project === null) throw projectNotFound(params.id);
    return {
      status: 200,
      body: {
        id: project.id,
        key: project.key,
        organisation_id: project.organisationId,
        region: project.region,
        limits: { max_concurrent_waits: project.limits.maxConcurrentWaits, ingest_ceiling: project.limits.ingestCeiling },
      },
    };
  });
