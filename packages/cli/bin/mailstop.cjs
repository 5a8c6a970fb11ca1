#!/usr/bin/env node
// The `mailstop` binary. Runs the compiled JavaScript (dist/, built by `pnpm install` and
// `pnpm build`) when it was compiled from the sources as they are now; otherwise, say after
// an edit, the TypeScript through tsx's require hook, so a stale build never runs. The
// "mailstop started" log line says which (`"code":"compiled"` or `"typescript"`).
require("./node-version.cjs").exitUnlessSupported();
// `serve` runs with its Node.js flags (serve-flags.cjs): without them, this becomes a node that has them.
require("./serve-flags.cjs").execWithServeFlagsIfMissing();
// V8's code for the bundle and the packages it loads, cached on disk by Node (its module compile
// cache, under the system's temporary directory): every start after the first skips most of
// compiling some 850 modules (issue 34). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
require("node:module").enableCompileCache?.();
const { join } = require("node:path");
const { DIST, ENTRIES, staleReason } = require("./compiled.cjs");

if (staleReason() === null) {
  // Stack traces name the TypeScript sources' lines (dist/*.cjs.map).
  process.setSourceMapsEnabled(true);
  require(join(DIST, ENTRIES.mailstop));
} else {
  require("tsx/cjs");
  require("../src/main.ts");
}
