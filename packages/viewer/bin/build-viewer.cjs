#!/usr/bin/env node
// Run by the root `postinstall`: builds the web inbox viewer (packages/viewer/dist, served at
// /ui/) so `pnpm install && pnpm start` serves it with no other command. A failure never fails
// the install: /ui/ then says how to build it. A production install (`--prod`, the Docker
// image's runtime layer) has no vite: the image builds the viewer in a stage of its own.
const { join } = require("node:path");

const root = join(__dirname, "..");
let vite;
try {
  vite = require.resolve("vite", { paths: [root] });
} catch {
  console.log("mailstop: web viewer not built here (vite is not installed: a production install).");
  process.exit(0);
}
import(require("node:url").pathToFileURL(vite).href)
  .then(({ build }) => build({ configFile: join(root, "vite.config.ts"), logLevel: "warn" }))
  .then(
    () => console.log(`mailstop: web viewer built: ${join(root, "dist")}`),
    (error) => console.warn(`mailstop: could not build the web viewer (/ui/ will say so; build it with \`pnpm --filter @mailstop/viewer build\`): ${error && error.message}`),
  );
