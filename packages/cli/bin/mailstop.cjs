#!/usr/bin/env node
// The `mailstop` binary: runs the TypeScript entry through tsx's require hook (no build step).
require("tsx/cjs");
require("../src/main.ts");
