// Preloaded (--require) into a mailstop process by loaded-packages.int.test.ts: on SIGUSR2 it
// writes the packages the process has loaded so far (from node_modules, by name) to the file
// LOADED_PACKAGES_FILE names, whole or not at all (written aside, then renamed: the test polls
// for the file and read a half-written one once).
"use strict";
const { renameSync, writeFileSync } = require("node:fs");

process.on("SIGUSR2", () => {
  const names = new Set();
  for (const path of Object.keys(require.cache)) {
    const at = path.lastIndexOf("/node_modules/");
    if (at === -1) continue;
    const parts = path.slice(at + "/node_modules/".length).split("/");
    names.add(parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  const file = process.env.LOADED_PACKAGES_FILE;
  writeFileSync(`${file}.partial`, JSON.stringify([...names].sort()));
  renameSync(`${file}.partial`, file);
});
