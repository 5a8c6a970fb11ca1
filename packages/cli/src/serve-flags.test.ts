import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// bin/serve-flags.cjs: the Node.js flags `mailstop serve` runs with (issue 34), whichever way
// it is started: `pnpm start`, the image's entrypoint, or the binary alone, which replaces
// itself with a node that has them.

const REPO = join(__dirname, "..", "..", "..");
const SERVE_FLAGS = join(__dirname, "..", "bin", "serve-flags.cjs");
const flags = require("../bin/serve-flags.cjs") as {
  SERVE_NODE_FLAGS: string[];
  missingServeFlags(execArgv: string[], nodeOptions: string | undefined): string[];
};

describe("the Node.js flags of `mailstop serve`", () => {
  it("are V8's young generation as on Node 20: semi-spaces of at most 16 MB", () => {
    expect(flags.SERVE_NODE_FLAGS).toEqual(["--max-semi-space-size=16"]);
  });

  it("are given by `pnpm start` and by the image's entrypoint", () => {
    const start = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
    const entrypoint = readFileSync(join(REPO, "infra", "docker", "entrypoint.sh"), "utf8");
    for (const flag of flags.SERVE_NODE_FLAGS) {
      expect(start).toContain(`node ${flag} packages/cli/bin/mailstop.cjs serve`);
      expect(entrypoint).toMatch(new RegExp(`exec node .*${flag} /app/packages/cli/dist/mailstop\\.cjs "\\$@"`));
    }
  });

  it("are missing unless node's command line or NODE_OPTIONS has them, in either spelling, whatever the value", () => {
    expect(flags.missingServeFlags([], undefined)).toEqual(["--max-semi-space-size=16"]);
    expect(flags.missingServeFlags(["--enable-source-maps"], "--no-warnings")).toEqual(["--max-semi-space-size=16"]);
    expect(flags.missingServeFlags(["--max-semi-space-size=16"], undefined)).toEqual([]);
    expect(flags.missingServeFlags([], "--no-warnings --max-semi-space-size=32")).toEqual([]);
    expect(flags.missingServeFlags(["--max_semi_space_size=8"], "")).toEqual([]);
  });

  describe("started without them", () => {
    let dir: string;
    let script: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "mailstop-serve-flags-"));
      script = join(dir, "bin.cjs");
      // What bin/mailstop.cjs does first; a line with the process id before, one with what the process runs with after.
      writeFileSync(
        script,
        `process.stdout.write(JSON.stringify({ before: process.pid }) + "\\n");
require(${JSON.stringify(SERVE_FLAGS)}).execWithServeFlagsIfMissing();
process.stdout.write(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2) }) + "\\n");\n`,
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** The script's first line (before execWithServeFlagsIfMissing) and its last (in the node it may have become, which runs the script again). */
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const { NODE_OPTIONS: _, ...rest } = process.env;
      const output = execFileSync(process.execPath, ["--no-warnings", script, ...args], { env: { ...rest, ...env }, encoding: "utf8", stdio: "pipe" });
      const lines = output.trim().split("\n").map((line) => JSON.parse(line));
      const [before, after] = [lines[0], lines.at(-1)];
      return { before: before.before as number, ...(after as { pid: number; execArgv: string[]; argv: string[] }) };
    };

    // process.execve came with Node 23.11 and 22.15: on an older 22 (engines allows 22.12) serve
    // runs as started, without the flags, rather than failing.
    const canExec = typeof (process as { execve?: unknown }).execve === "function";

    it(`\`serve\` ${canExec ? "becomes node with them" : "runs as started on a Node without process.execve"}, with its own flags and arguments kept, in the same process (signals and the package manager's parent watch see one)`, () => {
      const ran = run(["serve", "--target", "all"]);
      expect(ran.execArgv).toEqual(canExec ? ["--max-semi-space-size=16", "--no-warnings"] : ["--no-warnings"]);
      expect(ran.argv).toEqual(["serve", "--target", "all"]);
      expect(ran.pid).toBe(ran.before);
    });

    it("other commands, and a serve whose user set the flag, run as they were started", () => {
      expect(run(["--help"]).execArgv).toEqual(["--no-warnings"]);
      expect(run(["serve"], { NODE_OPTIONS: "--max-semi-space-size=32" }).execArgv).toEqual(["--no-warnings"]);
    });
  });
});
