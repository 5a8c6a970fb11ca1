#!/usr/bin/env node
// Run by the root `postinstall`: builds the embedded database's template (src/embedded-template.ts)
// so the first `pnpm start` skips initdb. A failure only costs that time, so it never fails
// the install.
require("tsx/cjs");
const { buildEmbeddedTemplate } = require("../src/embedded-template.ts");
buildEmbeddedTemplate().then(
  ({ path, built }) => console.log(`mailstop: embedded database template ${built ? "built" : "already built"}: ${path}`),
  (error) => console.warn(`mailstop: could not build the embedded database template (the first start will run initdb): ${error && error.message}`),
);
