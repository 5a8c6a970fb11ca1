// The `mailstop` package: the command (CLI and every service) as the compiled bundle
// (packages/cli/bin/build-mailstop.cjs) with the files it reads at run time, laid out as in the
// repository so the bundle's relative paths hold: packages/cli/dist, the embedded database's
// template and the migrations that key it, the articles, the OpenAPI documents, the parser
// thread's boot file and the web viewer (built here). The packages the bundle requires at run
// time (each `requireFrom(<workspace package>)(<name>)` call) become its dependencies, at the
// versions those workspace packages pin; Node finds them from packages/* up in the installing
// project's node_modules.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ENGINES, PACKAGES, ROOT, copy, freshStage, manifestOf, npmPack, readJson } from "./stage.mjs";

const DIST = join(PACKAGES, "cli", "dist");

/** Files and folders the bundle reads, relative to the repository (and so to the package). */
const RUNTIME_FILES = [
  "packages/cli/dist/mailstop.cjs",
  "packages/cli/dist/mailstop.cjs.map",
  "packages/cli/dist/parser-thread.cjs",
  "packages/cli/dist/parser-thread.cjs.map",
  "packages/cli/bin/node-version.cjs",
  "packages/cli/bin/serve-flags.cjs",
  "packages/api/content/articles",
  "packages/db/src/migrations",
  "packages/openapi/openapi",
  "packages/runtime/src/parser-thread/thread-boot.cjs",
];

/** The embedded database's template, where embedded-template.ts looks for it (this package's node_modules/.cache). */
const TEMPLATE_DIR = "packages/db/node_modules/.cache/mailstop";

/** `kysely/helpers/postgres` → `kysely`, `@scope/name/x` → `@scope/name`. */
const packageName = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/** Every package the bundles require at run time, with the range its workspace package pins. */
function runtimeDependencies() {
  const found = {};
  for (const file of readdirSync(DIST).filter((name) => name.endsWith(".cjs"))) {
    for (const [, from, specifier] of readFileSync(join(DIST, file), "utf8").matchAll(/requireFrom\("([^"]+)"\)\("([^"]+)"\)/g)) {
      const owner = readJson(join(DIST, from, "package.json"));
      const name = packageName(specifier);
      const range = { ...owner.optionalDependencies, ...owner.dependencies }[name];
      if (range === undefined) throw new Error(`${owner.name} requires ${name} without declaring it`);
      if (range.startsWith("workspace:")) throw new Error(`the bundle requires the workspace package ${name} at run time: it should be bundled`);
      if (found[name] !== undefined && found[name] !== range) throw new Error(`${name} is pinned at both ${found[name]} and ${range}: one version must serve the bundle`);
      found[name] = range;
    }
  }
  if (Object.keys(found).length === 0) throw new Error(`no run-time dependency found in ${DIST}: is the bundle built?`);
  return Object.fromEntries(Object.entries(found).sort(([a], [b]) => a.localeCompare(b)));
}

/** The web viewer, built by vite straight into the stage (packages/viewer/dist may be served by a test meanwhile). */
async function buildViewer(stage) {
  const viewer = join(PACKAGES, "viewer");
  const { build } = await import(pathToFileURL(createRequire(join(viewer, "package.json")).resolve("vite")).href);
  await build({ configFile: join(viewer, "vite.config.ts"), logLevel: "warn", build: { outDir: join(stage, "packages", "viewer", "dist"), emptyOutDir: true } });
}

export async function packMailstop(stages, out) {
  const stage = freshStage(stages, "mailstop");
  for (const path of RUNTIME_FILES) copy(join(ROOT, path), join(stage, path));
  await buildViewer(stage);
  const templates = join(ROOT, TEMPLATE_DIR);
  if (!existsSync(templates) || readdirSync(templates).length === 0) throw new Error(`no embedded database template in ${TEMPLATE_DIR}: run node packages/db/bin/build-embedded-template.cjs`);
  // The tarball only: a package keeps no empty directory, and the unpacked template (which a new
  // database on disk is copied from) has PostgreSQL's empty ones. Without it the first start
  // has PGlite load the tarball, as before issue 34.
  for (const file of readdirSync(templates).filter((name) => name.endsWith(".tar.gz"))) copy(join(templates, file), join(stage, TEMPLATE_DIR, file));
  // Read by embedded-template.ts (bundled): the PGlite version that keys the template.
  copy(join(PACKAGES, "db", "package.json"), join(stage, "packages", "db", "package.json"));
  copy(join(ROOT, "scripts", "pack", "mailstop-bin.cjs"), join(stage, "bin", "mailstop.cjs"));
  copy(join(PACKAGES, "cli", "README.md"), join(stage, "README.md"));
  const cli = manifestOf("cli");
  return npmPack(stage, out, {
    name: "mailstop",
    version: cli.version,
    description: readJson(join(ROOT, "package.json")).description,
    bin: { mailstop: "bin/mailstop.cjs" },
    files: ["bin", "packages", "README.md"],
    engines: ENGINES,
    dependencies: runtimeDependencies(),
  });
}
