import { dirname } from "node:path";
import express, { type Express } from "express";
import { metaRoute } from "../../deps";

// Swagger UI ships its bundle in the swagger-ui-dist package: served from node_modules, so the
// page works offline and behind a firewall (no CDN).
const ASSETS_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>mailstop API reference</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "openapi.json", dom_id: "#reference", deepLinking: true });
  </script>
</body>
</html>
`;

/**
 * Serves the Swagger UI assets under /docs/assets, and sends `/docs/` and `/` to the page. The
 * page refers to its assets relatively (it works behind a path prefix), so at `/docs/` they
 * resolved under /docs/docs/ and the page stayed blank; the redirects are relative too.
 */
export function mountDocsAssets(app: Express): void {
  app.use("/docs/assets", express.static(ASSETS_DIR, { index: false, immutable: true, maxAge: "1d" }));
  app.get("/docs/", (req, res, next) => (req.path.endsWith("/") ? res.redirect(301, "../docs") : next()));
  // No viewer yet: the API reference is the front page.
  app.get("/", (_req, res) => res.redirect(302, "docs"));
}

/** GET /docs: the rendered reference of /openapi.json. */
export const docsRoute = () =>
  metaRoute("getDocs", async ({ res }) => {
    res.type("text/html").send(PAGE);
    return undefined;
  });
