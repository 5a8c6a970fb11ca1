import { type ApiDeps, publicRoute } from "../../deps";
import { assertExpectations, keyContextView, parseScopeList } from "../../auth/key-context";

/** GET /v1/auth/check: key and project metadata, after checking the caller's expectations. */
export const checkAuthRoute = ({ config }: ApiDeps) =>
  publicRoute("checkAuth", async ({ auth, query }) => {
    const scopes = parseScopeList(query.scopes);
    assertExpectations(auth, config, { projectId: query.project_id, environment: query.environment, scopes });
    return { status: 200, body: keyContextView(auth, config) };
  });
