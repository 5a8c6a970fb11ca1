import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { useTempDir } from "@mailstop/testkit/src/temp-dir";

// bin/mailstop.cjs turns on Node's module compile cache (issue 34): a start after the first
// reads V8's code for the bundle and its packages from disk instead of compiling it again.

const BIN = join(__dirname, "..", "bin", "mailstop.cjs");

describe("the mailstop binary", () => {
  const dir = useTempDir("compile-cache");

  const run = (env: Record<string, string>) => {
    const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...inherited } = process.env;
    execFileSync(process.execPath, [BIN, "--version"], { env: { ...inherited, TMPDIR: dir(), ...env }, stdio: "ignore", timeout: 60_000 });
  };
  const cached = () => {
    const cache = join(dir(), "node-compile-cache");
    return existsSync(cache) ? readdirSync(cache, { recursive: true }).length : 0;
  };

  it("keeps V8's compiled code in Node's compile cache, under the temporary directory", () => {
    run({});
    expect(cached()).toBeGreaterThan(0);
  });

  it("does not when NODE_DISABLE_COMPILE_CACHE is set", () => {
    run({ NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(cached()).toBe(0);
  });
});
