import { resolve } from "node:path";
import { renderEdgeErrorsManifest } from "./edge-errors-backend";
import { renderIngress } from "./ingress";
import { renderComposeServer, renderLocations } from "./nginx-config";

/** The repository root (this file is packages/deploy/src/generated-files.ts). */
export const REPO_ROOT = resolve(__dirname, "../../..");

/** The nginx locations file that compose's edge and `startFleet` include. */
export const LOCATIONS_FILE = resolve(REPO_ROOT, "infra/nginx/mailstop-locations.conf");

/** Every file `pnpm generate` writes from the tables of this package, by path from the repository root. */
export function generatedFiles(): Record<string, string> {
  return {
    "infra/nginx/mailstop-locations.conf": renderLocations(),
    "infra/nginx/compose.conf": renderComposeServer(),
    "infra/k8s/base/ingress.yaml": renderIngress(),
    "infra/k8s/base/edge-errors.yaml": renderEdgeErrorsManifest(),
  };
}
