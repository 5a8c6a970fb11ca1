#!/usr/bin/env node
// `node bin/inline-core.mjs [dist]`, after tsc: the SDK's one piece of @mailstop/core, the capture
// relay's tag rule, compiled into its build. tsc leaves dist/capture-tag.js importing core's
// module, which no installed package has; esbuild writes it again with that module bundled in,
// so the built package imports no workspace package. Its declarations name nothing of core and
// stay tsc's. Run by the package's build, by pnpm pack:all on its staged copy and by the test
// that builds it (node-esm.int.test.ts).
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SDK = join(dirname(fileURLToPath(import.meta.url)), "..");
const esbuild = createRequire(join(SDK, "package.json"))("esbuild");

/** Writes `dist`/capture-tag.js (and its source map with `sourcemap`) with core's module inside. */
export async function inlineCore(dist, { sourcemap }) {
  await esbuild.build({
    entryPoints: [join(SDK, "src", "capture-tag.ts")],
    outfile: join(dist, "capture-tag.js"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap,
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await inlineCore(resolve(process.argv[2] ?? join(SDK, "dist")), { sourcemap: true });
