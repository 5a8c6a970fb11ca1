import { VIEWER_CSP, VIEWER_DIST_DIR, viewerIsBuilt } from "@mailstop/viewer";
import express, { type Express, type NextFunction, type Request, type Response } from "express";

const NOT_BUILT = `The web inbox viewer is not built on this server.
Build it with \`pnpm --filter @mailstop/viewer build\` (\`pnpm install\` builds it too), then reload.
The API itself works: see /docs.
`;

/** The headers of every /ui/ response: the viewer's policy, no sniffing, no referrer leaving the page. */
function viewerHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("Content-Security-Policy", VIEWER_CSP);
  res.setHeader("Referrer-Policy", "no-referrer");
  next();
}

/**
 * Serves the web inbox viewer (packages/viewer, built by vite) at /ui/, and sends `/` and `/ui`
 * there. Public static files: the page asks for an API key and calls the public API with it,
 * so the server keeps no session. The built files are looked for at each request, so a server
 * started before the build serves the viewer once it exists; until then /ui/ says how to build it.
 * Hashed assets are cached for good; index.html is revalidated so a new build is picked up.
 */
export function mountViewer(app: Express, dir: string = VIEWER_DIST_DIR): void {
  const assets = express.static(dir, {
    index: "index.html",
    redirect: false,
    setHeaders: (res, path) => res.setHeader("Cache-Control", path.endsWith(".html") ? "no-cache" : "public, max-age=31536000, immutable"),
  });
  app.get("/", (_req, res) => res.redirect(302, "ui/"));
  app.get("/ui", (req, res, next) => (req.path === "/ui" ? res.redirect(301, "ui/") : next()));
  app.use("/ui", viewerHeaders, (req, res, next) => {
    if (viewerIsBuilt(dir)) return assets(req, res, next);
    // A plain page, not the API's error envelope: a person opened this in a browser.
    res.status(503).type("text/plain").send(NOT_BUILT);
  });
}
