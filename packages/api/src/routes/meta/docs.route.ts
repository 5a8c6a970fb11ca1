import { createHash } from "node:crypto";
import express, { type Express } from "express";
import { metaRoute } from "../../deps";

// Swagger UI ships its bundle in the swagger-ui-dist package: served from node_modules, so the
// page works offline and behind a firewall (no CDN). Its own helper, not require.resolve: that
// would resolve from the compiled bundle's directory (packages/cli/bin/build-mailstop.cjs).
const ASSETS_DIR = (require("swagger-ui-dist/absolute-path.js") as () => string)();

const BOOT_SCRIPT = `window.ui = SwaggerUIBundle({ url: "openapi.json", dom_id: "#reference", deepLinking: true });`;

/**
 * The page's policy: Swagger UI's bundle and this one boot script (by its hash), its inline
 * styles and data: images, requests to this origin only (the document and "Try it out").
 */
const DOCS_CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash("sha256").update(BOOT_SCRIPT).digest("base64")}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

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
  <script>${BOOT_SCRIPT}</script>
</body>
</html>
`;

/**
 * Serves the Swagger UI assets under /docs/assets, and sends `/docs/` to the page. The page
 * refers to its assets relatively (it works behind a path prefix), so at `/docs/` they
 * resolved under /docs/docs/ and the page stayed blank; the redirect is relative too.
 */
export function mountDocsAssets(app: Express): void {
  app.use("/docs/assets", express.static(ASSETS_DIR, { index: false, immutable: true, maxAge: "1d" }));
  app.get("/docs/", (req, res, next) => (req.path.endsWith("/") ? res.redirect(301, "../docs") : next()));
}

/** GET /docs: the rendered reference of /openapi.json. */
export const docsRoute = () =>
  metaRoute("getDocs", async ({ res }) => {
    res.type("text/html").setHeader("Content-Security-Policy", DOCS_CSP);
    res.send(PAGE);
    return undefined;
  });
