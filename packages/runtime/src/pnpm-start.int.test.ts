import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, freePort, rawRequest, sendOneRaw } from "@mailstop/testkit";

// The README's first command as a user runs it: `pnpm start` in the background, then its pid
// signalled (`kill $!`). pnpm does not pass the signal on to mailstop, which must stop anyway.
// It runs the compiled JavaScript the install builds (built again here, in case a source
// changed since).

const REPO = join(__dirname, "..", "..", "..");
const API_KEY = "is_test_signals_0123456789abcdefghij";

/** True while something accepts connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

interface Started {
  pnpm: ChildProcess;
  output: () => string;
}

describe("`pnpm start` stopped through the package manager's pid", () => {
  let dataDir: string;
  let ports: { http: number; smtp: number; capture: number };
  const started: Started[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [join(REPO, "packages", "cli", "bin", "build-mailstop.cjs")], { stdio: "ignore", timeout: 60_000 });
    dataDir = mkdtempSync(join(tmpdir(), "mailstop-pnpm-start-"));
    ports = { http: await freePort(), smtp: await freePort(), capture: await freePort() };
  });
  afterAll(() => {
    // Whatever a failed test left running: mailstop's own pid is in each log line.
    for (const { pnpm, output } of started) {
      pnpm.kill("SIGKILL");
      for (const pid of new Set([...output().matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])))) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `pnpm start`; `terminal`: in a process group of its own, as a shell runs a foreground job (Ctrl-C signals the group). */
  async function start(options: { terminal?: boolean; apiKey?: string } = {}): Promise<Started> {
    // The embedded stand-ins, whatever engines this test run was given.
    const { DATABASE_URL: _db, REDIS_URL: _redis, S3_ENDPOINT: _s3, ...env } = process.env;
    const pnpm = spawn("pnpm", ["start"], {
      cwd: REPO,
      env: {
        ...env,
        MAILSTOP_DATA_DIR: dataDir,
        MAILSTOP_HTTP_PORT: String(ports.http),
        MAILSTOP_SMTP_PORT: String(ports.smtp),
        MAILSTOP_CAPTURE_PORT: String(ports.capture),
        MAILSTOP_BOOTSTRAP_API_KEY: options.apiKey ?? API_KEY,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.terminal === true,
    });
    let text = "";
    pnpm.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    pnpm.stderr!.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    const handle = { pnpm, output: () => text };
    started.push(handle);
    await eventually(async () => ((await fetch(`http://127.0.0.1:${ports.http}/health`).catch(() => null))?.ok ? true : null), {
      timeoutMs: 90_000,
      what: `mailstop to answer /health (output so far: ${text.slice(-2000)})`,
    });
    return handle;
  }

  async function stopped(handle: Started): Promise<void> {
    await eventually(async () => ((await Promise.all([ports.http, ports.smtp, ports.capture].map(accepts))).some(Boolean) ? null : true), {
      timeoutMs: 30_000,
      what: `every port of mailstop to be freed (its output: ${handle.output().slice(-3000)})`,
    });
  }

  const api = (method: string, path: string, body?: unknown) =>
    rawRequest(`http://127.0.0.1:${ports.http}`, method, path, {
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("SIGTERM to pnpm's pid stops mailstop gracefully, keeping the message it answered 250; SIGINT does too", async () => {
    const first = await start();
    const startedLine = await eventually(async () => first.output().split("\n").find((line) => line.includes('"msg":"mailstop started"')) ?? null, { what: "the start-up log line" });
    expect(JSON.parse(startedLine).code).toBe("compiled");
    const { json: inbox } = await api("POST", "/v1/inboxes", { tag: "signals" });
    const reply = await sendOneRaw(ports.smtp, inbox.address, "Kept across kill $!");
    expect(reply.code).toBe(250);
    const exited = once(first.pnpm, "exit");
    first.pnpm.kill("SIGTERM");
    await exited;
    await stopped(first);
    expect(first.output()).toContain('"msg":"mailstop stopping"');

    const second = await start();
    const listed = await eventually(async () => {
      const { json } = await api("GET", `/v1/messages?inbox=${encodeURIComponent(inbox.address)}`);
      return json?.data?.length === 1 ? json.data : null;
    }, { what: "the message accepted before the stop" });
    expect(listed[0].subject).toBe("Kept across kill $!");
    second.pnpm.kill("SIGINT");
    await stopped(second);
  });

  it("Ctrl-C in a terminal (SIGINT to the whole process group): a ready summary first, then a stopped line, exit 0, no package-manager failure", async () => {
    const terminal = await start({ terminal: true });
    const ready = await eventually(async () => (terminal.output().includes("mailstop is ready.") ? terminal.output() : null), { what: "the ready summary" });
    expect(ready).toContain(`http://localhost:${ports.http}/ui/`);
    expect(ready).toContain(`127.0.0.1:${ports.smtp}   mail to local.<tag>@mailstop.test, once that inbox exists`);
    // The data directory is the earlier tests': this is a restart.
    expect(ready).toContain("local, from an earlier start");
    const exited = once(terminal.pnpm, "exit");
    process.kill(-terminal.pnpm.pid!, "SIGINT");
    const [code, signal] = await exited;
    await stopped(terminal);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(terminal.output()).toContain("mailstop stopped (SIGINT); everything it accepted is kept.");
    expect(terminal.output()).not.toContain("ELIFECYCLE");
  });

  it("says at start that a bootstrap key it cannot apply any more is ignored, and why", async () => {
    const other = await start({ apiKey: "is_test_not_the_first_one_0123456789" });
    expect(other.output()).toMatch(/MAILSTOP_BOOTSTRAP_API_KEY is ignored: bootstrap settings apply on a first start only, .* it is not a key of this database/);
    expect(other.output()).toContain("mailstop keys create --project local");
    other.pnpm.kill("SIGTERM");
    await stopped(other);
  });

  it("stops on its own when the package manager is killed outright (SIGKILL)", async () => {
    const third = await start();
    third.pnpm.kill("SIGKILL");
    await stopped(third);
    expect(third.output()).toContain("the package manager that started it exited");
  });
});
