import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { OPENAPI_FILES } from "@mailstop/openapi";
import { runDatabaseUrl, runRedisUrl, uniqueRedisPrefix } from "@mailstop/testkit";
import { buildBundle, startServeProcess } from "./serve-process.fixture";

// What a process loads is what it costs before it serves anything (docs/performance.md "What
// a process loads"): each target requires the packages of the services it runs, and the
// libraries used only on some paths (BullMQ, the MCP SDK, minio, selfsigned, pino-pretty, the
// message checks' mailauth and caniemail, the articles' Markdown and sanitiser) are required
// where they are used; the bundle carries the OpenAPI documents parsed. Checked on the compiled
// bundle, what `pnpm start` and the image run (a bundler may hoist a require to the top of the
// file).

const REPORTER = join(__dirname, "..", "test", "report-loaded-packages.cjs");

/** Only the API, the parser, the SMTP edge or a path a waiter never takes uses these. */
const NOT_FOR_A_WAITER = ["yaml", "bullmq", "mailparser", "smtp-server", "selfsigned", "@modelcontextprotocol/sdk", "markdown-it", "sanitize-html", "gray-matter", "tldts", "minio", "pino-pretty"];

/** Required on a path's first use (a check, an article, an MCP call, STARTTLS...): nothing at start takes it. */
const NOT_BEFORE_FIRST_USE = ["@modelcontextprotocol/sdk", "minio", "selfsigned", "pino-pretty", "mailauth", "joi", "undici", "caniemail", "markdown-it", "sanitize-html", "postcss", "gray-matter", "js-yaml"];

let dir: string;

beforeAll(() => {
  buildBundle();
  dir = mkdtempSync(join(tmpdir(), "mailstop-loaded-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages `mailstop serve --target <target>` has loaded once it answers /health, and its /openapi.json when it serves one. */
async function packagesLoadedBy(target: "waiter" | "all"): Promise<{ loaded: string[]; openApi: unknown }> {
  const reportFile = join(dir, `${target}.json`);
  const server = await startServeProcess({
    target,
    reporter: REPORTER,
    reportFile,
    env: { DATABASE_URL: runDatabaseUrl(), REDIS_URL: runRedisUrl(), MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix(), MAILSTOP_DATA_DIR: join(dir, target), LOADED_PACKAGES_FILE: reportFile },
  });
  try {
    expect(server.output()).toContain('"code":"compiled"');
    const loaded = await server.report<string[]>();
    const openApi = await fetch(`${server.url}/openapi.json`);
    return { loaded, openApi: openApi.ok ? await openApi.json() : null };
  } finally {
    await server.stop();
  }
}

describe("the packages a process loads", () => {
  it("a waiter loads what it serves waits and streams with, none of the API's, the parser's or the SMTP edge's libraries", async () => {
    const { loaded } = await packagesLoadedBy("waiter");
    expect(loaded).toEqual(expect.arrayContaining(["express", "pg", "ioredis", "ajv"]));
    expect(loaded.filter((name) => NOT_FOR_A_WAITER.includes(name))).toEqual([]);
  });

  it("the monolith loads every service's libraries, but not the MCP SDK before a call, minio on the directory store, selfsigned without STARTTLS, pino-pretty for JSON logs, the message checks' libraries before a message, the articles' before a request", async () => {
    const { loaded, openApi } = await packagesLoadedBy("all");
    expect(loaded).toEqual(expect.arrayContaining(["bullmq", "mailparser", "smtp-server", "express"]));
    expect(loaded.filter((name) => NOT_BEFORE_FIRST_USE.includes(name))).toEqual([]);
    // The document the bundle carries parsed is openapi.yaml's.
    expect(openApi).toEqual(parse(readFileSync(OPENAPI_FILES.public, "utf8")));
  });
});
