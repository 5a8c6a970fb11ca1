#!/usr/bin/env node
// The `mailstop` command of the installed package (scripts/pack/mailstop.mjs): the compiled
// bundle, always (the package carries no TypeScript to fall back to).
"use strict";
const { join } = require("node:path");

require(join(__dirname, "..", "packages", "cli", "bin", "node-version.cjs")).exitUnlessSupported();
// `serve` runs with its Node.js flags: without them, this becomes a node that has them.
require(join(__dirname, "..", "packages", "cli", "bin", "serve-flags.cjs")).execWithServeFlagsIfMissing();
// Stack traces name the TypeScript sources' lines (dist/*.cjs.map).
process.setSourceMapsEnabled(true);
require(join(__dirname, "..", "packages", "cli", "dist", "mailstop.cjs"));
