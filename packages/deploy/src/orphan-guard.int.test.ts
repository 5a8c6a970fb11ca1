import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eventually } from "@mailstop/testkit";
import { REPO_ROOT } from "./generated-files";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the orphan guard", () => {
  it("stops the children and removes the directory when their parent is killed without a chance to clean up", async () => {
    const directory = mkdtempSync(join(tmpdir(), "mailstop-guard-test-"));
    // A parent that starts a guard and one long child, prints the child's pid, then waits.
    const script = [
      `const { spawn } = require("node:child_process");`,
      `const { startOrphanGuard } = require(${JSON.stringify(resolve(__dirname, "orphan-guard.ts"))});`,
      `const guard = startOrphanGuard(${JSON.stringify(directory)});`,
      `const child = spawn("sleep", ["60"], { stdio: "ignore" });`,
      `guard.watch(child.pid);`,
      `console.log(child.pid);`,
      `setInterval(() => undefined, 1000);`,
    ].join("\n");
    const parent = spawn(process.execPath, ["-r", "tsx/cjs", "-e", script], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    parent.stdout.on("data", (chunk) => (output += chunk));
    try {
      const childPid = await eventually(async () => (/^\d+\n/.test(output) ? Number(output.trim()) : null), { timeoutMs: 15_000, what: "the child's pid" });
      expect(alive(childPid)).toBe(true);
      parent.kill("SIGKILL");
      await eventually(async () => (!alive(childPid) && !existsSync(directory) ? true : null), { timeoutMs: 10_000, what: "the child stopped and the directory removed" });
    } finally {
      parent.kill("SIGKILL");
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);
});
