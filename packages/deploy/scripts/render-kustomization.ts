// Prints a kustomization rendered by packages/deploy/src/kustomize.ts, as `kubectl kustomize`
// would, for review where kubectl is not installed:
//   pnpm --filter @mailstop/deploy render-k8s infra/k8s/overlays/production
import { resolve } from "node:path";
import { stringify } from "yaml";
import { REPO_ROOT } from "../src/generated-files";
import { renderKustomization } from "../src/kustomize";

const directory = process.argv[2];
if (directory === undefined) {
  console.error("usage: render-kustomization <directory with a kustomization.yaml>");
  process.exit(1);
}
const objects = renderKustomization(resolve(process.env.INIT_CWD ?? REPO_ROOT, directory));
process.stdout.write(objects.map((o) => stringify(o, { lineWidth: 0, version: "1.1" })).join("---\n"));
