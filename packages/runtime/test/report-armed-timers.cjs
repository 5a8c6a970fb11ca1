// Preloaded (--require) into a mailstop process by idle-timers.int.test.ts: it follows every
// timer the process arms (async_hooks sees each Timeout from creation to its end) and on SIGUSR2
// writes those armed now to the file ARMED_TIMERS_FILE names, each with its delay, whether it
// repeats, and where it was armed (written aside, then renamed: the test polls for the file).
"use strict";
const { createHook } = require("node:async_hooks");
const { renameSync, writeFileSync } = require("node:fs");

const armed = new Map();
createHook({
  init(id, type, _trigger, resource) {
    if (type !== "Timeout") return;
    // Where it was armed: the first frames outside Node's own timers and this file.
    const where = (new Error().stack ?? "").split("\n").slice(2).filter((line) => !line.includes("node:internal") && !line.includes(__filename)).slice(0, 3).map((line) => line.trim());
    armed.set(id, { resource, where });
  },
  destroy(id) {
    armed.delete(id);
  },
}).enable();

process.on("SIGUSR2", () => {
  const timers = [];
  for (const { resource, where } of armed.values()) {
    // A cleared or fired one-shot timer has _idleTimeout -1 until its destroy hook runs.
    if (resource._idleTimeout < 0 || resource._destroyed) continue;
    timers.push({ ms: resource._idleTimeout, repeats: resource._repeat !== null, where });
  }
  const file = process.env.ARMED_TIMERS_FILE;
  writeFileSync(`${file}.partial`, JSON.stringify(timers));
  renameSync(`${file}.partial`, file);
});
