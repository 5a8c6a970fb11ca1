// `generate` writes the edge's nginx config and Ingress from packages/deploy/src; `--check`
// renders them in memory and fails when a committed file differs.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { REPO_ROOT, generatedFiles } from "../src/generated-files";

const check = process.argv.includes("--check");
let drift = false;
for (const [path, content] of Object.entries(generatedFiles())) {
  const target = resolve(REPO_ROOT, path);
  if (!check) {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    continue;
  }
  let committed = "";
  try {
    committed = readFileSync(target, "utf8");
  } catch {
    // missing: reported below as drift
  }
  if (committed !== content) {
    console.error(`${path} is out of date with packages/deploy/src: run \`pnpm generate\`.`);
    drift = true;
  }
}
if (drift) process.exit(1);
