#!/usr/bin/env node
// Copies into <out> what the image runs and nothing else (the Dockerfile's build stage runs it):
//   - the workspace packages' files outside node_modules and tests (the compiled bundle, the
//     viewer's dist, the sources whose `__dirname` the bundle keeps: migrations, content,
//     OpenAPI files), the root package.json and infra/docker (entrypoint, health check);
//   - the embedded database's template's tarball (packages/db/node_modules/.cache);
//   - the packages the bundle leaves external, each `requireFrom(<workspace package>)(<name>)`
//     call of packages/cli/dist/*.cjs, with their production dependencies (`dependencies` and
//     `optionalDependencies`, never `devDependencies`), found by Node's own lookup through
//     node_modules and copied with pnpm's layout: the real folders under node_modules/.pnpm and
//     the symlinks that lead to them, less the files that Node never loads from them (PRUNED).
// Usage: runtime-files.cjs <repository root> <out> [--list]   (--list prints, copies nothing)
"use strict";
const { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, symlinkSync } = require("node:fs");
const { dirname, join, relative, sep } = require("node:path");

const [root, out, flag] = process.argv.slice(2);
if (!root || !out) {
  console.error("usage: runtime-files.cjs <repository root> <out> [--list]");
  process.exit(2);
}
const DIST = join(root, "packages", "cli", "dist");
/** Folders of the workspace packages the image never reads. */
const SKIPPED = new Set(["node_modules", ".turbo", ".mailstop", "coverage"]);
const TEST_FILE = /\.(test|int\.test|engines\.test)\.tsx?$/;
/**
 * Files of the external packages that `require` never loads: source maps, type declarations,
 * TypeScript sources, Markdown, ES-module builds in folders of their own (`esm/`, `es6/`,
 * `amd/`, `global/`), tests and examples; and three large ones no code of the image reaches:
 * PGlite's extension tarballs (mailstop loads no extension), xml2js's js_of_ocaml build (its
 * `main` is lib/xml2js.js) and swagger-ui-dist's builds but the one the api serves
 * (swagger-ui-bundle.js, with swagger-ui.css). Beside these, esmTwins() drops a package's
 * ES-module build where its CommonJS build stands on its own, unless an ES-module package
 * imports it (caniemail imports @adobe/css-tools: `import` resolves to its ES-module build). `*.mjs` stays: some packages'
 * `require` targets are .mjs (async-function). The one-liner test and `pnpm compose:check`
 * run the image that results.
 */
const PRUNED = [
  /\.(map|d\.ts|d\.cts|d\.mts|ts|mts|cts|md|markdown)$/i,
  /\/(test|tests|__tests__|example|examples|docs|benchmark|bench)\//,
  /@electric-sql\/pglite\/dist\/[^/]+\.tar\.gz$/,
  /\/xml2js\/lib\/xml2js\.bc\.js$/,
  // encoding-japanese's browser builds (its `main` is src/index.js); caniemail's second copy of
  // its data (dist/json.js reads ../data/caniemail.json).
  /\/encoding-japanese\/encoding(\.min)?\.js$/,
  /\/caniemail\/dist\/data\//,
  /\/swagger-ui-dist\/swagger-ui(-es-bundle[^/]*|-standalone-preset)?\.js$/,
];

/** `requireFrom("../../db")("kysely/helpers/postgres")` → [packages/db, "kysely"]. */
function externals() {
  const found = new Map();
  for (const file of readdirSync(DIST).filter((name) => name.endsWith(".cjs"))) {
    const text = readFileSync(join(DIST, file), "utf8");
    for (const [, from, specifier] of text.matchAll(/requireFrom\("([^"]+)"\)\("([^"]+)"\)/g)) {
      const parts = specifier.split("/");
      const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
      found.set(`${join(DIST, from)}|${name}`, { from: join(DIST, from), name });
    }
  }
  if (found.size === 0) throw new Error(`no external package named in ${DIST}: is the bundle built?`);
  return [...found.values()];
}

const links = new Map(); // symlink path → its target as written
const folders = new Set(); // real package folders
const imported = new Set(); // real package folders that an ES-module package imports

/** Node's lookup of package `name` from folder `from`: every node_modules/<name> up the tree. */
function lookup(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** Records `path` and every symlink on the way to it (pnpm links to links). */
function follow(path) {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const parent = realpathSync(dirname(current));
    const here = join(parent, current.slice(dirname(current).length + 1));
    if (!lstatSync(here).isSymbolicLink()) return here;
    const target = readlinkSync(here);
    links.set(here, target);
    current = join(parent, target);
  }
  throw new Error(`too many links at ${path}`);
}

/**
 * Dependencies that their dependent declares but never loads: caniemail 2 lists its build's
 * import-sorting prettier plugin (which brings prettier and Babel, 20 MB) among its
 * `dependencies`; its dist/ requires neither. The image test and `pnpm compose:check` parse
 * mail with caniemail loaded.
 */
const NEVER_LOADED = new Set(["@trivago/prettier-plugin-sort-imports"]);

/** `byImport`: the dependent is an ES-module package, whose `import` loads the dependency's ES-module build. */
function addPackage(from, name, optional, byImport) {
  if (NEVER_LOADED.has(name)) return;
  const found = lookup(from, name);
  if (found === null) {
    if (optional) return;
    throw new Error(`${name} is not installed where ${from} would find it`);
  }
  const real = follow(found);
  const importedNow = byImport && !imported.has(real);
  if (importedNow) imported.add(real);
  if (folders.has(real) && !importedNow) return;
  folders.add(real);
  const manifest = JSON.parse(readFileSync(join(real, "package.json"), "utf8"));
  // Loaded as an ES module (imported, or an ES-module package without a CommonJS build), a
  // package loads its dependencies with `import` too: their ES-module builds must stay.
  const esm = imported.has(real) || (manifest.type === "module" && !requireTargets(manifest).some((target) => target.endsWith(".cjs") || target.startsWith("dist/cjs/")));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) addPackage(real, dependency, false, esm);
  for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) addPackage(real, dependency, true, esm);
  // Peers that the install provided, where the package finds them.
  for (const dependency of Object.keys(manifest.peerDependencies ?? {})) addPackage(real, dependency, true, esm);
}

// The bundle requires its externals (CommonJS).
for (const { from, name } of externals()) addPackage(from, name, false, false);

/** Every string under a `require` condition of a package's `exports` (and its `main`). */
function requireTargets(manifest) {
  const targets = typeof manifest.main === "string" ? [manifest.main] : [];
  const walk = (node, underRequire) => {
    if (typeof node === "string") {
      if (underRequire) targets.push(node);
    } else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) walk(value, underRequire || key === "require");
    }
  };
  walk(manifest.exports, false);
  return targets.map((target) => target.replace(/^\.\//, ""));
}

/**
 * The ES-module build of `folder`'s package, which `require` never reaches (none when an
 * ES-module package imports it): folders `esm/`, `es6/`, `amd/`, `global/`; `X.js` beside
 * `X.cjs` in a `"type": "module"` package (PGlite, zod), and the code in dist/ outside
 * dist/cjs when every `require` target lies in dist/cjs (hono, kysely, bullmq, the MCP SDK);
 * and the builds its manifest names for bundlers and browsers (`module`, `browser`, `unpkg`,
 * `jsdelivr`) when they are not its `main` (pkijs, encoding-japanese).
 */
function esmTwins(folder) {
  if (imported.has(folder)) return () => false;
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const targets = requireTargets(manifest);
  const cjsOnly = existsSync(join(folder, "dist", "cjs")) && targets.length > 0 && targets.every((target) => target.startsWith("dist/cjs/"));
  const main = (typeof manifest.main === "string" ? manifest.main : "index.js").replace(/^\.\//, "");
  const otherBuilds = new Set(
    [manifest.module, manifest.browser, manifest.unpkg, manifest.jsdelivr]
      .filter((field) => typeof field === "string")
      .map((field) => field.replace(/^\.\//, ""))
      .filter((field) => field !== main && `${field}.js` !== main && !targets.includes(field)),
  );
  return (source) => {
    const inside = relative(folder, source).split(sep).join("/");
    // Minified and UMD builds are for browsers and CDNs, unless the package's entry is one.
    if (/\.(min|umd)\.c?js$|\.umd\.min\.js$/.test(inside) && inside !== main && !targets.includes(inside)) return true;
    if (otherBuilds.has(inside) || /(^|\/)(esm|es6|amd|global|cjs-browser)\//.test(`${inside}/`)) return true;
    // Code only: data beside it (nodemailer's dist/well-known/*.json) is read by the CommonJS build too.
    if (cjsOnly && inside.startsWith("dist/") && !inside.startsWith("dist/cjs") && /\.m?js$/.test(inside)) return true;
    return manifest.type === "module" && inside.endsWith(".js") && existsSync(source.replace(/\.js$/, ".cjs"));
  };
}

const rootReal = realpathSync(root);
const inRepo = (path) => relative(rootReal, path);
for (const path of [...folders, ...links.keys()]) {
  if (inRepo(path).startsWith("..")) throw new Error(`${path} lies outside the repository`);
}

if (flag === "--list") {
  // No process.exit after it: writes to a pipe are asynchronous, and exiting at once cut the
  // list short when its reader was slow (a loaded CI machine lost the folders after "m").
  process.stdout.write(`${[...folders].sort().map(inRepo).join("\n")}\n`);
  return; // a CommonJS module's top level may return: nothing below is for --list
}

/**
 * A folder of the tree outside node_modules, less tests and TypeScript sources (the bundle holds
 * them; the migrations stay, whose text keys the embedded database's template).
 */
const MIGRATIONS = `${join("packages", "db", "src", "migrations")}${sep}`;
function copyTree(dir) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) copyTree(path);
    } else if (entry.isFile() && !TEST_FILE.test(entry.name) && (!/\.tsx?$/.test(entry.name) || path.startsWith(MIGRATIONS))) {
      mkdirSync(join(out, dir), { recursive: true });
      cpSync(join(root, path), join(out, path));
    }
  }
}
copyTree("packages");
copyTree(join("infra", "docker"));
cpSync(join(root, "package.json"), join(out, "package.json"));
const template = join("packages", "db", "node_modules", ".cache", "mailstop");
if (!existsSync(join(root, template))) throw new Error(`the embedded database template is not built (${template})`);
// Its tarball only: the unpacked copy beside it (≈ 39 MB, which spares a first `pnpm start` the
// RSS of PGlite unpacking in JavaScript) would take the image past its 60 MB above Node; a
// container unpacks the tarball on its first start, into the data volume.
const templateRoot = join(root, template);
cpSync(templateRoot, join(out, template), { recursive: true, filter: (source) => source === templateRoot || source.endsWith(".tar.gz") });

for (const folder of folders) {
  const twin = esmTwins(folder);
  // A real package folder holds no node_modules of its own under pnpm; its dependencies are links.
  cpSync(folder, join(out, inRepo(folder)), {
    recursive: true,
    filter: (source) => {
      const inside = source.slice(folder.length);
      if (inside.split(sep).includes("node_modules") || twin(source)) return false;
      return !PRUNED.some((pattern) => pattern.test(source.split(sep).join("/") + (lstatSync(source).isDirectory() ? "/" : "")));
    },
  });
}
for (const [path, target] of links) {
  mkdirSync(dirname(join(out, inRepo(path))), { recursive: true });
  symlinkSync(target, join(out, inRepo(path)));
}
console.log(`runtime-files: ${folders.size} packages, ${links.size} links into ${out}`);
