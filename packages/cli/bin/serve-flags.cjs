// The Node.js flags `mailstop serve` runs with (issue 34). Plain ES2015, like node-version.cjs.
//
// --max-semi-space-size=16: V8's young generation as on Node 20. Node 24 lets each of its
// semi-spaces grow to 64 MB; a serving process then holds 47–92 MB more RSS with no faster
// ingest (docs/performance.md, "Node 24 (issue 33)" and "A light default (issue 34)").
//
// The flags cannot be set once Node runs (v8.setFlagsFromString leaves the heap's size as it
// was), so each way of starting the service passes them on node's command line: the root
// package.json's `start` script and the image's entrypoint (infra/docker/entrypoint.sh) name
// them, and bin/mailstop.cjs, started without them (`npx mailstop serve`), replaces itself with
// a node that has them (process.execve: the same process id, so signals and the package
// manager's parent watch are unchanged). A --max-semi-space-size the user gave
// (NODE_OPTIONS or node's command line) is left as it is.
"use strict";

const SERVE_NODE_FLAGS = ["--max-semi-space-size=16"];

/** The flags `execArgv` and `nodeOptions` lack, of those serve runs with. */
function missingServeFlags(execArgv, nodeOptions) {
  // V8 reads --max_semi_space_size as --max-semi-space-size.
  const given = [...execArgv, ...String(nodeOptions || "").split(/\s+/)].map((arg) => arg.replace(/_/g, "-"));
  return SERVE_NODE_FLAGS.filter((flag) => {
    const name = flag.split("=")[0];
    return !given.some((arg) => arg === name || arg.startsWith(`${name}=`));
  });
}

/**
 * For `mailstop serve` started without the flags: replaces this process with node given them
 * and the same script, arguments and environment. Returns when there is nothing to do (another
 * command, the flags there already, a Node without process.execve).
 */
function execWithServeFlagsIfMissing() {
  if (process.argv[2] !== "serve" || typeof process.execve !== "function") return;
  const missing = missingServeFlags(process.execArgv, process.env.NODE_OPTIONS);
  if (missing.length === 0) return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], process.env);
}

module.exports = { SERVE_NODE_FLAGS, missingServeFlags, execWithServeFlagsIfMissing };
