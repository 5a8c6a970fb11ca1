import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The app lives in app/ and is built to dist/, which the api serves at /ui/. Asset paths are
// relative (`base: "./"`) so the viewer works behind a path prefix, like /docs.
export default defineConfig({
  root: fileURLToPath(new URL("./app", import.meta.url)),
  base: "./",
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: true,
    // No inline polyfill script: the page's CSP allows scripts from its own origin only.
    modulePreload: { polyfill: false },
    target: "es2022",
    reportCompressedSize: false,
  },
});
