// `generate` writes the edge's nginx config and Ingress from packages/deploy/src; `--check`
// renders them in memory and fails when a committed file differs.
import { relative, resolve } from "node:path";
import { writeOrCheckGenerated } from "@mailstop/core/generated-files";
import { REPO_ROOT, generatedFiles } from "../src/generated-files";

const files = Object.fromEntries(Object.entries(generatedFiles()).map(([path, content]) => [resolve(REPO_ROOT, path), content]));
const drifted = writeOrCheckGenerated(files, process.argv.includes("--check"));
for (const path of drifted) console.error(`${relative(REPO_ROOT, path)} is out of date with packages/deploy/src: run \`pnpm generate\`.`);
if (drifted.length > 0) process.exit(1);
