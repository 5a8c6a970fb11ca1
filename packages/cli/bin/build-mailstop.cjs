#!/usr/bin/env node
// Compiles `mailstop` to JavaScript: packages/cli/dist/mailstop.cjs (the CLI and every service)
// and dist/parser-thread.cjs (the monolith's parser thread), so `pnpm start` and the image run
// no TypeScript compiler. Run by the root `postinstall` (with --postinstall) and by
// `turbo run build`; it takes about a second. A production install (`--prod`) has no esbuild: it then builds nothing and
// bin/mailstop.cjs runs the TypeScript through tsx (the image compiles in a stage of its own).
//
// The workspace's packages (@mailstop/*, TypeScript) are bundled; every other package stays
// outside the bundle and is required at run time from the workspace package that declares it,
// by Node's own resolution, as when running the sources. A bundled module's `__dirname` and
// `__filename` stay its source file's (content, the OpenAPI files, the viewer's dist are found
// where they are in the repository). So the bundle runs in place, inside the repository or
// the image, not copied elsewhere.
"use strict";
const { builtinModules } = require("node:module");
const { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } = require("node:fs");
const { dirname, join, relative, sep } = require("node:path");
const { DIST, ENTRIES, MANIFEST, ROOT, describe } = require("./compiled.cjs");

const CLI = join(__dirname, "..");
const SOURCES = {
  mailstop: join(CLI, "src", "main.ts"),
  "parser-thread": join(ROOT, "packages", "runtime", "src", "parser-thread", "thread-main.ts"),
};
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
/** The module that gives bundled code its source locations and its packages' `require`. */
const BUNDLE_MODULE = "mailstop:bundle";

function loadEsbuild() {
  try {
    return require(require.resolve("esbuild", { paths: [CLI] }));
  } catch {
    return null;
  }
}

/** The directory of the package.json nearest above `file`: the workspace package it belongs to. */
function packageDirOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  throw new Error(`no package.json above ${file}`);
}

/** Whether the package in `dir` is an ES module package (`"type": "module"`), read once per package. */
const moduleTypes = new Map();
function isModulePackage(dir) {
  if (!moduleTypes.has(dir)) moduleTypes.set(dir, JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).type === "module");
  return moduleTypes.get(dir);
}

/** A path from the bundle's directory, as code in the bundle joins it to its `__dirname`. */
const fromDist = (path) => relative(DIST, path).split(sep).join("/");

const bundlePlugin = {
  name: "mailstop-bundle",
  setup(build) {
    build.onResolve({ filter: /^mailstop:bundle$/ }, () => ({ path: "bundle", namespace: "mailstop" }));
    // Referring to `__dirname` and `__filename` themselves, this module makes esbuild rename
    // the ones each source file declares below, so the bundle's own stay intact.
    build.onLoad({ filter: /.*/, namespace: "mailstop" }, () => ({
      loader: "js",
      resolveDir: DIST,
      contents: [
        `const { createRequire } = require("node:module");`,
        `const { join } = require("node:path");`,
        `const bundle = { dir: __dirname, file: __filename };`,
        `export const at = (path) => join(bundle.dir, path);`,
        `export const requireFrom = (packageDir) => createRequire(join(bundle.dir, packageDir, "package.json"));`,
      ].join("\n"),
    }));

    // A dependency outside the workspace: required at run time from the package that imports it.
    // Except from an ES module package (the SDK): Node gives its `import x from "dep"` the
    // dependency's ESM build, while a require here would give the CommonJS build, whose
    // `default` differs (openapi-fetch's is `exports.default`, not the module): those
    // dependencies are bundled from their ESM build, as Node would load them. So are theirs (a
    // package bundled this way requires from inside node_modules/.pnpm, a path only the
    // repository has: the installed `mailstop` package has none, scripts/pack/mailstop.mjs).
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (BUILTINS.has(args.path) || args.path.startsWith("@mailstop/") || args.path === BUNDLE_MODULE) return undefined;
      if (args.importer === "" || args.namespace !== "file") return undefined;
      if (args.importer.split(sep).includes("node_modules")) return undefined;
      const packageDir = packageDirOf(args.importer);
      if (isModulePackage(packageDir)) return undefined;
      return { path: `${fromDist(packageDir)}|${args.path}`, namespace: "mailstop-dependency" };
    });
    build.onLoad({ filter: /.*/, namespace: "mailstop-dependency" }, (args) => {
      const [packageDir, specifier] = args.path.split("|");
      return {
        loader: "js",
        resolveDir: DIST,
        contents: `module.exports = require(${JSON.stringify(BUNDLE_MODULE)}).requireFrom(${JSON.stringify(packageDir)})(${JSON.stringify(specifier)});`,
      };
    });

    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (/\brequire\.resolve\(/.test(text)) {
        return { errors: [{ text: "require.resolve would resolve from the bundle's directory: require the package's own path helper, or a file of it, instead" }] };
      }
      const locations = { __dirname: dirname(args.path), __filename: args.path };
      const used = Object.keys(locations).filter((name) => new RegExp(`\\b${name}\\b`).test(text));
      if (used.length === 0) return { contents: text, loader: "ts" };
      const preamble = [
        `import { at as __mailstop_at } from ${JSON.stringify(BUNDLE_MODULE)};`,
        ...used.map((name) => `const ${name} = __mailstop_at(${JSON.stringify(fromDist(locations[name]))});`),
      ];
      // On the first line, so the source map's lines stay the file's own.
      return { contents: `${preamble.join(" ")}${text}`, loader: "ts" };
    });
  },
};

/** The OpenAPI documents the bundle carries parsed (packages/openapi/src/document.ts), by file name. */
const OPENAPI_DOCUMENTS = ["packages/openapi/openapi/openapi.yaml", "packages/openapi/openapi/admin.yaml"];

/** Each document's JSON text by file name, for the bundle's `MAILSTOP_OPENAPI_DOCUMENTS`: the YAML parsed here once, not at every start. */
function parsedDocuments() {
  const { parse } = require(require.resolve("yaml", { paths: [join(ROOT, "packages", "openapi")] }));
  const documents = {};
  for (const path of OPENAPI_DOCUMENTS) documents[path.split("/").pop()] = JSON.stringify(parse(readFileSync(join(ROOT, path), "utf8")));
  return documents;
}

async function main() {
  const esbuild = loadEsbuild();
  if (esbuild === null) {
    console.log("mailstop: not compiled here (esbuild is not installed: a production install); bin/mailstop.cjs runs the TypeScript through tsx.");
    return;
  }
  const staging = `${DIST}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: SOURCES,
    outdir: staging,
    entryNames: "[name]",
    outExtension: { ".js": ".cjs" },
    bundle: true,
    platform: "node",
    target: "node24",
    format: "cjs",
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
    // Read by packages/runtime/src/bundle.ts: the bundle's directory, as the bundle runs.
    banner: { js: "var MAILSTOP_BUNDLE_DIR = __dirname;" },
    define: { MAILSTOP_OPENAPI_DOCUMENTS: JSON.stringify(parsedDocuments()) },
    plugins: [bundlePlugin],
  });
  // This script is an input too: a change to how it bundles makes the bundle stale.
  const self = relative(ROOT, __filename).split(sep).join("/");
  const inputs = { [self]: describe(self) };
  for (const document of OPENAPI_DOCUMENTS) inputs[document] = describe(document);
  for (const input of Object.keys(result.metafile.inputs)) {
    if (input.includes(":")) continue; // the plugin's virtual modules
    inputs[input] = describe(input);
  }
  // Each file replaced by a rename, the manifest last: a `mailstop` starting meanwhile runs
  // either bundle whole, or the sources.
  mkdirSync(DIST, { recursive: true });
  for (const file of Object.values(ENTRIES)) {
    renameSync(join(staging, file), join(DIST, file));
    renameSync(join(staging, `${file}.map`), join(DIST, `${file}.map`));
  }
  writeFileSync(join(staging, "inputs.json"), `${JSON.stringify({ inputs }, null, 1)}\n`);
  renameSync(join(staging, "inputs.json"), MANIFEST);
  rmSync(staging, { recursive: true, force: true });
  console.log(`mailstop: compiled to ${relative(process.cwd(), DIST) || "."} (${Object.keys(inputs).length} source files)`);
}

// Under `postinstall` a failure warns and never fails the install, like the template's and the
// viewer's builds: bin/mailstop.cjs then runs the TypeScript. Under `build` it fails the build.
const POSTINSTALL = process.argv.includes("--postinstall");
main().catch((error) => {
  if (POSTINSTALL) {
    console.warn(`mailstop: could not compile (\`pnpm start\` runs the TypeScript through tsx; see \`pnpm --filter @mailstop/cli build\`): ${error && error.message}`);
    return;
  }
  console.error(`mailstop: could not compile: ${error && error.message}`);
  process.exit(1);
});
