import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Mailstop } from "@mailstop/sdk/source";
import { eventually, freePort, useTestServer } from "@mailstop/testkit";

// `mailstop keys create --project <key>` (docs/operator.md "A new key for an existing project"):
// on the monolith's data directory (refused with what to do while a mailstop holds it, then a
// key the restarted mailstop accepts) and on DATABASE_URL (a key the running server accepts at
// once). Integration only: the DATABASE_URL case needs the run's PostgreSQL.
const BIN = join(__dirname, "..", "bin", "mailstop.cjs");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without any mailstop setting, plus `env`. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MAILSTOP_") && name !== "DATABASE_URL" && name !== "REDIS_URL"));
  return { ...clean, ...env };
}

function mailstop(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env: environment(env), timeout: 60_000, encoding: "utf8" }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr });
    });
  });
}

/** The key line of `keys create`'s output. */
const keyOf = (run: Run) => /^(is_test_\S+)$/m.exec(run.stdout)?.[1];

async function expectAcceptedAndAudited(baseUrl: string, apiKey: string, projectKey: string, keyId: string): Promise<void> {
  const sdk = new Mailstop({ baseUrl, apiKey });
  const auth = await sdk.meta.checkAuth();
  expect(auth.project.key).toBe(projectKey);
  expect(auth.scopes.length).toBeGreaterThan(5);
  const events = await sdk.audit.list({ action: "api_key.created" });
  expect(events.data.find((event) => event.target.id === keyId)).toMatchObject({ actor: { type: "system", id: "keys-create" } });
}

describe("on the monolith's data directory", () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let port: number;

  async function serve(): Promise<void> {
    port = await freePort();
    let output = "";
    child = spawn(process.execPath, [BIN, "serve", "--target", "all"], {
      env: environment({ MAILSTOP_DATA_DIR: dataDir, MAILSTOP_HTTP_PORT: String(port), MAILSTOP_SMTP_PORT: String(await freePort()), MAILSTOP_CAPTURE_PORT: String(await freePort()) }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null))?.ok ? true : null), { timeoutMs: 90_000, what: `mailstop to be ready (${output.slice(-2000)})` });
  }

  async function stop(): Promise<void> {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  }

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "mailstop-keys-"));
  });
  afterAll(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("says there is no database yet before any start", async () => {
    const run = await mailstop(["keys", "create", "--project", "local"], { MAILSTOP_DATA_DIR: dataDir });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain("start mailstop once");
  });

  it("refuses while mailstop runs on it, naming its pid and to stop it first; once stopped, makes a key the restarted mailstop accepts", async () => {
    await serve();
    const refused = await mailstop(["keys", "create", "--project", "local"], { MAILSTOP_DATA_DIR: dataDir });
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toContain(`in use by a running mailstop (pid ${child!.pid})`);
    expect(refused.stderr).toContain("Stop that mailstop first");
    await stop();

    const created = await mailstop(["keys", "create", "--project", "local", "--json"], { MAILSTOP_DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const printed = JSON.parse(created.stdout) as { id: string; key: string; project: string };
    expect(printed).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^is_test_/), project: "local" });
    const unknown = await mailstop(["keys", "create", "--project", "nope"], { MAILSTOP_DATA_DIR: dataDir });
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain("no project `nope`");

    await serve();
    await expectAcceptedAndAudited(`http://127.0.0.1:${port}`, printed.key, "local", printed.id);
  }, 240_000);
});

describe("on DATABASE_URL", () => {
  const server = useTestServer({});

  it("makes a key for the project that the running server accepts at once, printed once", async () => {
    const run = await mailstop(["keys", "create", "--project", server.project.projectKey], { DATABASE_URL: server.config.databaseUrl! });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("shown once");
    const key = keyOf(run)!;
    const id = /\((key_\w+), every scope\)/.exec(run.stdout)?.[1];
    await expectAcceptedAndAudited(server.url, key, server.project.projectKey, id!);
  });
});
