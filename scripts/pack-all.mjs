#!/usr/bin/env node
// `pnpm pack:all [--out <dir>]`: the tarballs a project outside the repository installs with
// npm: @mailstop/sdk, @mailstop/playwright and `mailstop` (the command and the embedded
// monolith). Builds what they carry (the compiled bundle, the embedded database's template;
// the libraries and the viewer straight into the staging folders), then packs each from its
// staging folder: the workspace's own package.json files and dist/ folders are left as they
// are. Prints one tarball path a line. Default out: dist/packs.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PACKAGES, ROOT } from "./pack/stage.mjs";
import { packPlaywright, packSdk } from "./pack/library.mjs";
import { packMailstop } from "./pack/mailstop.mjs";

const outFlag = process.argv.indexOf("--out");
const out = outFlag === -1 ? join(ROOT, "dist", "packs") : resolve(process.argv[outFlag + 1]);

const node = (...args) => execFileSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });

// What the command carries and the repository builds in place, each written whole (a test
// running meanwhile sees the old file or the new): the template (kept when current) and the bundle.
node(join(PACKAGES, "db", "bin", "build-embedded-template.cjs"));
node(join(PACKAGES, "cli", "bin", "build-mailstop.cjs"));

const stages = mkdtempSync(join(tmpdir(), "mailstop-pack-"));
try {
  for (const tarball of [await packSdk(stages, out), await packPlaywright(stages, out), await packMailstop(stages, out)]) console.log(tarball);
} finally {
  rmSync(stages, { recursive: true, force: true });
}
