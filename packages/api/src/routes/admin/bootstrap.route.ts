import { adminSource } from "../../audit/audit-source";
import { type ApiDeps, adminRoute } from "../../deps";
import { provisionProject } from "../../provisioning/provision-project";

/** POST /admin/v1/bootstrap: organisation, project, API key and SMTP credential in one call. */
export const bootstrapRoute = ({ db, config }: ApiDeps) =>
  adminRoute("bootstrap", async ({ body, requestId }) => ({
    status: 201,
    body: await provisionProject(db, config, {
      ...(body.project_key === undefined ? {} : { projectKey: body.project_key }),
      ...(body.scopes === undefined ? {} : { scopes: body.scopes }),
      ...(body.environment === undefined ? {} : { environment: body.environment }),
      ...(body.region === undefined ? {} : { region: body.region }),
    }, adminSource({ requestId })),
  }));
