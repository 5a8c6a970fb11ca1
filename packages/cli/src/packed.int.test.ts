import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, freePort, sendOneRaw, startJsonLineChild, uniqueTag } from "@mailstop/testkit";

// From a project of your own (issue 31): `pnpm pack:all` makes the tarballs, npm installs them
// into a new CommonJS project (`npm init -y`) outside the repository, with @playwright/test from
// the registry, as the README's "Use it from your project" says; then `npx mailstop serve` runs
// the embedded monolith from the installed package, the SDK waits for a message from `import`
// and from `require`, and the fixture runs in Playwright's runner (no browser: the test uses
// only the inbox).
const ROOT = join(__dirname, "..", "..", "..");
const FIXTURES = join(__dirname, "..", "test", "packed");
const PLAYWRIGHT_VERSION = (JSON.parse(readFileSync(join(ROOT, "packages", "playwright", "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies["@playwright/test"]!;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command with the environment of this process less every mailstop setting; never rejects. */
function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  // Nor jest's (Playwright refuses to run under JEST_WORKER_ID; NODE_OPTIONS carries jest's VM
  // flag) or pnpm's settings for the scripts it runs (npm_config_…: this is an npm project).
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(MAILSTOP_|JEST_|npm_)/.test(name) && !["DATABASE_URL", "REDIS_URL", "NODE_OPTIONS"].includes(name)));
  return new Promise((done) => {
    execFile(command, args, { cwd: options.cwd, env: { ...clean, ...options.env }, timeout: options.timeoutMs ?? 300_000, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr });
    });
  });
}

let work: string;
let project: string;
let child: ChildProcess | undefined;
let output = "";
const ports = { http: 0, smtp: 0, capture: 0 };
let apiKey: string;
const timings: Record<string, number> = {};

async function timed<T>(name: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await step();
  } finally {
    timings[name] = Date.now() - started;
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mailstop-packed-"));
  project = join(work, "project");
  mkdirSync(project);
  const packed = await timed("pack:all", () => run(process.execPath, [join(ROOT, "scripts", "pack-all.mjs"), "--out", join(work, "packs")], { cwd: ROOT }));
  if (packed.code !== 0) throw new Error(`pack:all failed: ${packed.stderr}`);
  const tarballs = packed.stdout.trim().split("\n");
  expect(tarballs.map((path) => path.slice(path.lastIndexOf("/") + 1))).toEqual(["mailstop-sdk-0.1.0.tgz", "mailstop-playwright-0.1.0.tgz", "mailstop-0.1.0.tgz"]);
  expect((await run("npm", ["init", "-y"], { cwd: project })).code).toBe(0);
  const installed = await timed("npm install", () =>
    run("npm", ["install", "--no-audit", "--no-fund", ...tarballs, `@playwright/test@${PLAYWRIGHT_VERSION}`], { cwd: project, env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" } }),
  );
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
  for (const file of ["consumer.mjs", "consumer.cjs", "playwright.config.ts"]) copyFileSync(join(FIXTURES, file), join(project, file));
  cpSync(join(FIXTURES, "tests"), join(project, "tests"), { recursive: true });

  Object.assign(ports, { http: await freePort(), smtp: await freePort(), capture: await freePort() });
  await timed("serve until ready", async () => {
    child = spawn("npx", ["mailstop", "serve"], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? work,
        MAILSTOP_DATA_DIR: join(work, "data"),
        MAILSTOP_HTTP_PORT: String(ports.http),
        MAILSTOP_SMTP_PORT: String(ports.smtp),
        MAILSTOP_CAPTURE_PORT: String(ports.capture),
      },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: npx's child is the server, stopped with the group.
      detached: true,
    });
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => ((await fetch(`http://127.0.0.1:${ports.http}/ready`).catch(() => null))?.ok ? true : null), {
      timeoutMs: 90_000,
      what: `the installed mailstop to be ready (${output.slice(-2000)})`,
    });
  });
  apiKey = /API key \(generated now\): (is_test_\S+)/.exec(output)![1]!;
}, 600_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit");
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
  // Measured for docs/decisions.md: how long each part of the packed test takes.
  console.log(`packed test timings (ms): ${JSON.stringify(timings)}`);
}, 60_000);

it("npx mailstop serve runs the embedded monolith from the installed package: its bundle, PGlite from the template, the viewer", async () => {
  expect(output).toContain('"code":"compiled"');
  expect(output).toContain("embedded stand-ins for");
  expect(output).not.toContain('"msg":"database migrated"');
  const base = `http://127.0.0.1:${ports.http}`;
  const viewer = await fetch(`${base}/ui/`);
  expect({ status: viewer.status, type: viewer.headers.get("content-type") }).toEqual({ status: 200, type: expect.stringContaining("text/html") });
  expect((await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
  const check = await fetch(`${base}/v1/auth/check`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(((await check.json()) as { project: { key: string } }).project.key).toBe("local");
});

it("npx mailstop keys create names the running mailstop to stop first (its data directory is PGlite's, one process)", async () => {
  const refused = await run("npx", ["mailstop", "keys", "create", "--project", "local"], { cwd: project, env: { MAILSTOP_DATA_DIR: join(work, "data") } });
  expect(refused).toMatchObject({ code: 1, stdout: "" });
  expect(refused.stderr).toContain("is in use by a running mailstop (pid ");
});

it.each(["consumer.mjs", "consumer.cjs"])("the installed SDK waits for a message (%s)", async (consumer) => {
  const child = startJsonLineChild(consumer, [consumer, uniqueTag("packed")], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "", MAILSTOP_API_URL: `http://127.0.0.1:${ports.http}`, MAILSTOP_API_KEY: apiKey },
  });
  try {
    child.process.stdin.end(); // it reads nothing: its input ends at once
    const { address } = await child.next<{ address: string }>();
    expect((await sendOneRaw(ports.smtp, address, "hello packed")).code).toBe(250);
    expect(await child.next()).toEqual({ subject: "hello packed", from: consumer.endsWith(".mjs") ? "import" : "require" });
    expect(await child.exited).toBe(0);
  } finally {
    child.process.kill();
  }
});

it("the installed fixture runs in Playwright's runner", async () => {
  const result = await timed("playwright test", () =>
    run("npx", ["playwright", "test", "--reporter=line"], {
      cwd: project,
      env: { MAILSTOP_API_URL: `http://127.0.0.1:${ports.http}`, MAILSTOP_API_KEY: apiKey, SMTP_PORT: String(ports.smtp) },
      timeoutMs: 120_000,
    }),
  );
  expect({ code: result.code, output: result.stdout + result.stderr }).toEqual({ code: 0, output: expect.stringContaining("1 passed") });
});
