import { publicDocument } from "@mailstop/openapi";
import { metaRoute } from "../../deps";

/** GET /openapi.json: the public OpenAPI 3.1 document, serialised once. */
export const openApiRoute = () => {
  const json = JSON.stringify(publicDocument());
  return metaRoute("getOpenApi", async ({ res }) => {
    res.type("application/json").send(json);
    return undefined;
  });
};
