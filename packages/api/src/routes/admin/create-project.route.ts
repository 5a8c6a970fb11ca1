import { organisationExists } from "@mailstop/db";
import { invalidRequest } from "@mailstop/openapi";
import { type ApiDeps, adminRoute } from "../../deps";
import { createProject, randomProjectKey } from "../../provisioning/provision-project";

/** POST /admin/v1/projects. */
export const createProjectRoute = ({ db, config }: ApiDeps) =>
  adminRoute("createProject", async ({ body }) => {
    if (!(await organisationExists(db, body.organisation_id))) {
      invalidRequest([{ in: "body", path: "/organisation_id", message: "names no organisation" }]);
    }
    const project = await createProject(db, { organisationId: body.organisation_id, key: body.key ?? randomProjectKey(), region: body.region ?? config.region });
    return { status: 201, body: { id: project.id, key: project.key, organisation_id: project.organisationId, region: project.region } };
  });
