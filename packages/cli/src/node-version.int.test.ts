import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

// A newcomer on a Node.js older than 22.12 (the machine's own Node 20, where it has one): the
// `mailstop` binary and `pnpm start` turn it away in a few words and a non-zero status, with no
// stack trace and nothing started. The tests run on Node 24; the old Node is spawned.

const REPO = join(__dirname, "..", "..", "..");
const BIN = join(REPO, "packages", "cli", "bin", "mailstop.cjs");
const guard = require("../bin/node-version.cjs") as { unsupported(version: string): string | null };

/** A Node.js binary on this machine older than mailstop supports, or why there is none. */
function oldNode(): { path: string; version: string } | { missing: string } {
  const path = "/usr/bin/node";
  if (!existsSync(path)) return { missing: `no ${path} on this machine` };
  const version = execFileSync(path, ["-v"], { encoding: "utf8" }).trim();
  return guard.unsupported(version) === null ? { missing: `${path} is ${version}, which mailstop supports` } : { path, version };
}

const old = oldNode();
const itOnOldNode = (name: string, test: (node: { path: string; version: string }) => void) =>
  "missing" in old ? it.skip(`${name} [needs a Node.js older than 22.12: ${old.missing}]`, () => {}) : it(name, () => test(old), 60_000);

describe("mailstop on a Node.js older than 22.12", () => {
  itOnOldNode("the binary prints one line saying what to install and exits 1", ({ path, version }) => {
    const run = spawnSync(path, [BIN, "serve", "--target", "all"], { encoding: "utf8", timeout: 30_000, env: { ...process.env, MAILSTOP_DATA_DIR: join(tmpdir(), "never-created") } });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`${guard.unsupported(version)}\n`);
  });

  itOnOldNode("`pnpm start` refuses it before mailstop runs, naming the version the package needs", ({ path, version }) => {
    // pnpm (a Node program, `#!/usr/bin/env node`) runs on the first `node` in PATH: the old one.
    const bin = mkdtempSync(join(tmpdir(), "mailstop-old-node-"));
    try {
      symlinkSync(path, join(bin, "node"));
      const run = spawnSync("pnpm", ["start"], { cwd: REPO, encoding: "utf8", timeout: 30_000, env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}` } });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.status).not.toBe(0);
      expect(output).toContain("Expected version: >=22.12");
      expect(output).toContain(`Got: ${version}`);
      expect(output).not.toMatch(/^\s+at /m);
      expect(output).not.toContain("mailstop started");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
