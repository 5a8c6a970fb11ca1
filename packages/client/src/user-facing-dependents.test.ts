import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

// The raw driver is for the test suites only (README): every surface a user runs is on
// @mailstop/sdk, so a retry or error rule is written once (docs/decisions.md "One client under
// every surface (issue 30)"). Tests of those packages may still drive the API with it.

const PACKAGES = join(__dirname, "..", "..");
const USER_FACING = ["cli", "mcp", "playwright", "sdk"];
/** A string literal naming the package or a file of it: an import, a require, an import(). */
const NAMES_THE_DRIVER = /["']@mailstop\/client(?:\/[^"']*)?["']/;

/** The package's sources that are not tests, relative to the packages folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return /\.(c|m)?tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative(PACKAGES, path)] : [];
  });
}

function runtimeDependencies(name: string): string[] {
  const manifest = JSON.parse(readFileSync(join(PACKAGES, name, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
  return ["dependencies", "peerDependencies", "optionalDependencies"].flatMap((field) => Object.keys(manifest[field] ?? {}));
}

describe("no user-facing surface depends on @mailstop/client", () => {
  it.each(USER_FACING)("packages/%s does not declare it in its package.json", (name) => {
    expect(runtimeDependencies(name)).not.toContain("@mailstop/client");
  });

  it.each(USER_FACING)("no source of packages/%s but its tests imports it", (name) => {
    const files = sources(join(PACKAGES, name, "src"));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => NAMES_THE_DRIVER.test(readFileSync(join(PACKAGES, file), "utf8")))).toEqual([]);
  });
});
