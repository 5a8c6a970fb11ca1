import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { OPENAPI_FILES } from "@mailstop/openapi";
import { TEST_SECRETS_KEY, eventually, freePort, runDatabaseUrl, runRedisUrl, uniqueRedisPrefix } from "@mailstop/testkit";

// What a process loads is what it costs before it serves anything (docs/performance.md "What
// a process loads"): each target requires the packages of the services it runs, and the
// libraries used only on some paths (BullMQ, the MCP SDK, minio, selfsigned, pino-pretty) are
// required where they are used; the bundle carries the OpenAPI documents parsed. Checked on the
// compiled bundle, what `pnpm start` and the image run (a bundler may hoist a require to the
// top of the file).

const REPO = join(__dirname, "..", "..", "..");
const REPORTER = join(__dirname, "..", "test", "report-loaded-packages.cjs");

/** Only the API, the parser, the SMTP edge or a path a waiter never takes uses these. */
const NOT_FOR_A_WAITER = ["yaml", "bullmq", "mailparser", "smtp-server", "selfsigned", "@modelcontextprotocol/sdk", "markdown-it", "sanitize-html", "gray-matter", "tldts", "minio", "pino-pretty"];

let dir: string;
const running: ChildProcess[] = [];

beforeAll(() => {
  execFileSync(process.execPath, [join(REPO, "packages", "cli", "bin", "build-mailstop.cjs")], { stdio: "ignore", timeout: 60_000 });
  dir = mkdtempSync(join(tmpdir(), "mailstop-loaded-"));
});
afterAll(async () => {
  for (const child of running) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** The packages `mailstop serve --target <target>` has loaded once it answers /health, and its /openapi.json when it serves one. */
async function packagesLoadedBy(target: "waiter" | "all"): Promise<{ loaded: string[]; openApi: unknown }> {
  const http = await freePort();
  const file = join(dir, `${target}.json`);
  const child = spawn(process.execPath, ["--require", REPORTER, join(REPO, "packages", "cli", "bin", "mailstop.cjs"), "serve", "--target", target], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: runDatabaseUrl(),
      REDIS_URL: runRedisUrl(),
      MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix(),
      MAILSTOP_DATA_DIR: join(dir, target),
      MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY,
      MAILSTOP_HOST: "127.0.0.1",
      MAILSTOP_HTTP_PORT: String(http),
      MAILSTOP_SMTP_PORT: String(await freePort()),
      MAILSTOP_CAPTURE_PORT: String(await freePort()),
      MAILSTOP_LOG_FORMAT: "json",
      LOADED_PACKAGES_FILE: file,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  try {
    await eventually(async () => ((await fetch(`http://127.0.0.1:${http}/health`).catch(() => null))?.ok ? true : null), {
      timeoutMs: 60_000,
      what: `mailstop --target ${target} to answer /health (output: ${output.slice(-2000)})`,
    });
    expect(output).toContain('"code":"compiled"');
    child.kill("SIGUSR2");
    const loaded = await eventually(async () => (existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as string[]) : null), { what: "the list of loaded packages" });
    const openApi = await fetch(`http://127.0.0.1:${http}/openapi.json`);
    return { loaded, openApi: openApi.ok ? await openApi.json() : null };
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
}

describe("the packages a process loads", () => {
  it("a waiter loads what it serves waits and streams with, none of the API's, the parser's or the SMTP edge's libraries", async () => {
    const { loaded } = await packagesLoadedBy("waiter");
    expect(loaded).toEqual(expect.arrayContaining(["express", "pg", "ioredis", "ajv"]));
    expect(loaded.filter((name) => NOT_FOR_A_WAITER.includes(name))).toEqual([]);
  });

  it("the monolith loads every service's libraries, but not the MCP SDK before a call, minio on the directory store, selfsigned without STARTTLS, pino-pretty for JSON logs", async () => {
    const { loaded, openApi } = await packagesLoadedBy("all");
    expect(loaded).toEqual(expect.arrayContaining(["bullmq", "mailparser", "smtp-server", "markdown-it"]));
    expect(loaded.filter((name) => ["@modelcontextprotocol/sdk", "minio", "selfsigned", "pino-pretty"].includes(name))).toEqual([]);
    // The document the bundle carries parsed is openapi.yaml's.
    expect(openApi).toEqual(parse(readFileSync(OPENAPI_FILES.public, "utf8")));
  });
});
