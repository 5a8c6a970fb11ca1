// The compiled `mailstop`: where the build (build-mailstop.cjs) writes it and whether it is
// current. The build records every source file it bundled (size, mtime, sha256) in
// dist/inputs.json; the bundle is current while each of those files is unchanged, so a
// source edited since the build is never run stale. Checking costs a stat per file (a hash
// only for a file whose mtime moved), a few milliseconds.
"use strict";
const { createHash } = require("node:crypto");
const { existsSync, readFileSync, statSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = join(__dirname, "..", "..", "..");
const DIST = join(__dirname, "..", "dist");
const MANIFEST = join(DIST, "inputs.json");
/** The bundles, by entry: the CLI and the monolith's parser thread (packages/runtime/src/parser-thread). */
const ENTRIES = { mailstop: "mailstop.cjs", "parser-thread": "parser-thread.cjs" };

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** What the manifest records of `path` (relative to `root`). */
function describe(path, root = ROOT) {
  const absolute = join(root, path);
  const { size, mtimeMs } = statSync(absolute);
  return { size, mtimeMs, sha256: sha256(absolute) };
}

/** The first input that differs from what the build recorded (paths relative to `root`), or null when none does. */
function changedInput(manifest, root = ROOT) {
  for (const [path, recorded] of Object.entries(manifest.inputs)) {
    let stat;
    try {
      stat = statSync(join(root, path));
    } catch {
      return path;
    }
    if (stat.size !== recorded.size) return path;
    // Same size, other mtime (a checkout, a touch, a copy): the content decides.
    if (stat.mtimeMs !== recorded.mtimeMs && sha256(join(root, path)) !== recorded.sha256) return path;
  }
  return null;
}

/**
 * Why the compiled bundle cannot run (not built, or built from sources that have changed
 * since), or null when it is current.
 */
function staleReason() {
  let manifest;
  if (Object.values(ENTRIES).some((file) => !existsSync(join(DIST, file)))) return "not built";
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
  } catch {
    return "not built";
  }
  const changed = changedInput(manifest);
  return changed === null ? null : `${changed} changed since the build`;
}

module.exports = { ROOT, DIST, MANIFEST, ENTRIES, describe, changedInput, staleReason };
