import { existsSync } from "node:fs";
import { join } from "node:path";

/** Where `vite build` writes the viewer (packages/viewer/dist), whether or not it has been built. */
export const VIEWER_DIST_DIR = join(__dirname, "..", "dist");

/** True once the viewer is built: its index.html is in VIEWER_DIST_DIR. */
export function viewerIsBuilt(dir: string = VIEWER_DIST_DIR): boolean {
  return existsSync(join(dir, "index.html"));
}

/**
 * The Content-Security-Policy of the viewer's page, and why each source is there:
 * - scripts, styles, fetches and the event stream come from this origin only;
 * - the message's HTML is an `<iframe sandbox srcdoc>`, which inherits this policy on top of
 *   its own: so styles allow 'unsafe-inline' (mail is styled inline) and images allow http:
 *   and https: (shown only once the user allows them for a message; until then the frame's
 *   own policy blocks them). The page itself never puts message data into markup, so neither
 *   gives a message a way to run anything;
 * - `frame-src 'self'` covers nothing but the srcdoc frames (no page is framed);
 * - no `<base>`, forms post only here, and no other page may frame the viewer.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: http: https:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
