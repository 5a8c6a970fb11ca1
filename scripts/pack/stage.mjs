// What every packed package shares: the repository's paths, a clean staging folder, npm pack of
// it, and the checks that nothing of the workspace is left in what is packed.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PACKAGES = join(ROOT, "packages");

/** esbuild, from the package that declares it (the CLI's build). */
export const esbuild = createRequire(join(PACKAGES, "cli", "package.json"))("esbuild");

export const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
export const manifestOf = (name) => readJson(join(PACKAGES, name, "package.json"));

/** The Node.js the packages run on: the repository's own `engines`. */
export const ENGINES = readJson(join(ROOT, "package.json")).engines;

/** An empty staging folder for one package. */
export function freshStage(stages, name) {
  const stage = join(stages, name);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  return stage;
}

export function copy(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

/** Every file under `dir`, as paths relative to it. */
export function filesUnder(dir, prefix = "") {
  return readdirSync(join(dir, prefix)).flatMap((name) => {
    const path = join(prefix, name);
    return statSync(join(dir, path)).isDirectory() ? filesUnder(dir, path) : [path];
  });
}

/**
 * Refuses a staged package that still names the workspace: a `workspace:` range, or an
 * `@mailstop/*` package it neither bundles nor declares (npm would look for it on the registry).
 */
export function assertSelfContained(stage, manifest) {
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
  for (const [name, range] of Object.entries(declared)) {
    if (String(range).startsWith("workspace:")) throw new Error(`${manifest.name}: ${name} is still "${range}"`);
  }
  for (const file of filesUnder(stage).filter((path) => /\.(c|m)?js$|\.d\.ts$/.test(path))) {
    for (const [, name] of readFileSync(join(stage, file), "utf8").matchAll(/(?:from |require\(|import\()["'](@mailstop\/[a-z-]+)/g)) {
      if (!(name in declared)) throw new Error(`${manifest.name}: ${file} needs ${name}, which it neither bundles nor declares`);
    }
  }
}

/** `npm pack` of the staged package into `out`; returns the tarball's path. */
export function npmPack(stage, out, manifest) {
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  assertSelfContained(stage, manifest);
  mkdirSync(out, { recursive: true });
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  return join(out, packed.filename);
}
