// `generate` writes docs/configuration.md; `check` fails when the committed file drifts.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { renderConfigurationReference } from "../src/reference";

const target = resolve(__dirname, "../../../docs/configuration.md");
const expected = renderConfigurationReference();
if (process.argv[2] === "--check") {
  let actual = "";
  try {
    actual = readFileSync(target, "utf8");
  } catch {
    // missing file: reported below as drift
  }
  if (actual !== expected) {
    console.error("docs/configuration.md is out of date with packages/config/src/schema.ts: run `pnpm generate`.");
    process.exit(1);
  }
} else {
  writeFileSync(target, expected);
}
