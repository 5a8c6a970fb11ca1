// `generate` writes docs/configuration.md; `check` fails when the committed file drifts.
import { resolve } from "node:path";
import { writeOrCheckGenerated } from "@mailstop/core/generated-files";
import { renderConfigurationReference } from "../src/reference";

const target = resolve(__dirname, "../../../docs/configuration.md");
if (writeOrCheckGenerated({ [target]: renderConfigurationReference() }, process.argv[2] === "--check").length > 0) {
  console.error("docs/configuration.md is out of date with packages/config/src/schema.ts: run `pnpm generate`.");
  process.exit(1);
}
