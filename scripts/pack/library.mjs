// The two libraries a test project imports, @mailstop/sdk and @mailstop/playwright: the ES
// modules and declarations tsc builds (the packages' own build), a CommonJS bundle of the same
// sources by esbuild for `require`, the README, and a package.json whose dependencies are real
// ranges (docs/decisions.md "Installable packages and the newcomer's path (issue 31)").
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inlineCore } from "../../packages/sdk/bin/inline-core.mjs";
import { ENGINES, PACKAGES, ROOT, copy, esbuild, filesUnder, freshStage, manifestOf, npmPack } from "./stage.mjs";

const tsc = createRequire(join(PACKAGES, "sdk", "package.json")).resolve("typescript/bin/tsc");

/** The fields of the workspace manifest a published one keeps; `private` and the sources' export go. */
function publishedManifest(workspace, dependencies) {
  const { name, version, description, peerDependencies } = workspace;
  return {
    name,
    version,
    description,
    type: "module",
    main: "./dist/index.cjs",
    module: "./dist/index.js",
    types: "./dist/index.d.ts",
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js", require: "./dist/index.cjs" }, "./package.json": "./package.json" },
    files: ["dist", "README.md"],
    engines: ENGINES,
    dependencies,
    ...(peerDependencies === undefined ? {} : { peerDependencies }),
  };
}

/**
 * tsc's ES modules and declarations, then esbuild's CommonJS bundle beside them. The bundle
 * carries the third-party modules too, taken from their ES builds as the ES modules get them:
 * a CommonJS build can differ (openapi-fetch's `default` is not its function under `require`).
 * What must stay one instance with the caller's (`shared`: @playwright/test, the SDK) stays outside.
 */
async function build(dir, stage, shared, paths = {}) {
  // The package's own build settings, written to the stage (never to the package's dist/, which
  // tests running meanwhile read), and `paths` for a workspace package's staged declarations.
  const tsconfig = join(stage, "..", `${stage.split("/").pop()}.tsconfig.json`);
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(dir, "tsconfig.build.json"),
      // typeRoots as seen from the package (they are looked up from the config's own folder).
      compilerOptions: { rootDir: join(dir, "src"), outDir: join(stage, "dist"), sourceMap: false, paths, typeRoots: [join(dir, "node_modules", "@types"), join(ROOT, "node_modules", "@types")] },
      include: [join(dir, "src")],
      exclude: [join(dir, "src", "**", "*.test.ts")],
    }),
  );
  execFileSync(process.execPath, [tsc, "-p", tsconfig], { stdio: "inherit" });
  await esbuild.build({
    entryPoints: [join(dir, "src", "index.ts")],
    outfile: join(stage, "dist", "index.cjs"),
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node22",
    external: shared,
    logLevel: "warning",
  });
}

/**
 * The SDK's declarations name `@mailstop/openapi` for the schema types: the generated types
 * file (declarations only) goes beside them, and the imports point at it.
 */
function inlineOpenApiTypes(stage) {
  copy(join(PACKAGES, "openapi", "src", "generated", "openapi.ts"), join(stage, "dist", "openapi.d.ts"));
  for (const file of filesUnder(join(stage, "dist")).filter((path) => path.endsWith(".d.ts"))) {
    const path = join(stage, "dist", file);
    const text = readFileSync(path, "utf8");
    const depth = file.split("/").length - 1;
    const rewritten = text.replace(
      /import type \{ PublicComponents, PublicOperations, PublicPaths \} from "@mailstop\/openapi";/,
      `import type { components as PublicComponents, operations as PublicOperations, paths as PublicPaths } from "${depth === 0 ? "./" : "../".repeat(depth)}openapi.js";`,
    );
    if (rewritten !== text) writeFileSync(path, rewritten);
  }
}

const thirdParty = (dependencies = {}) => Object.fromEntries(Object.entries(dependencies).filter(([name]) => !name.startsWith("@mailstop/")));

export async function packSdk(stages, out) {
  const dir = join(PACKAGES, "sdk");
  const stage = freshStage(stages, "sdk");
  const workspace = manifestOf("sdk");
  await build(dir, stage, []);
  await inlineCore(join(stage, "dist"), { sourcemap: false });
  inlineOpenApiTypes(stage);
  copy(join(dir, "README.md"), join(stage, "README.md"));
  return npmPack(stage, out, publishedManifest(workspace, thirdParty(workspace.dependencies)));
}

/** After {@link packSdk}, whose staged declarations it is built against. */
export async function packPlaywright(stages, out) {
  const dir = join(PACKAGES, "playwright");
  const stage = freshStage(stages, "playwright");
  const workspace = manifestOf("playwright");
  // The SDK it is built on, at the version packed beside it.
  const dependencies = { ...thirdParty(workspace.dependencies), "@mailstop/sdk": manifestOf("sdk").version };
  const sdkTypes = { "@mailstop/sdk": [join(stages, "sdk", "dist", "index.d.ts")] };
  await build(dir, stage, [...Object.keys(dependencies), ...Object.keys(workspace.peerDependencies ?? {})], sdkTypes);
  copy(join(dir, "README.md"), join(stage, "README.md"));
  return npmPack(stage, out, publishedManifest(workspace, dependencies));
}
