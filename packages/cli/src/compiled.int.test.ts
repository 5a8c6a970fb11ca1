import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFreshDatabase, dropDatabase, eventually, freePort, rawRequest, runDatabaseUrl, runRedisUrl, sendOneRaw, uniqueRedisPrefix } from "@mailstop/testkit";

// The compiled `mailstop` (bin/build-mailstop.cjs) as `pnpm start` and the image run it: built
// here, then the binary spawned. Everything the bundle must still find where the sources keep
// it (the parser, the embedded database's template, the articles, the OpenAPI files, the web
// viewer, Swagger UI's assets, the parser thread's own bundle) is used once.

const CLI = join(__dirname, "..");
const BIN = join(CLI, "bin", "mailstop.cjs");
const API_KEY = "is_test_compiled_0123456789abcdefghij";

interface Manifest {
  inputs: Record<string, { size: number; mtimeMs: number; sha256: string }>;
}
const compiled = require("../bin/compiled.cjs") as {
  describe(path: string, root?: string): Manifest["inputs"][string];
  changedInput(manifest: Manifest, root?: string): string | null;
  staleReason(): string | null;
};

function build(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(CLI, "bin", "build-mailstop.cjs")], { timeout: 60_000, encoding: "utf8" }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`the build failed: ${stderr}${stdout}`)),
    );
  });
}

describe("the compiled mailstop", () => {
  beforeAll(async () => {
    expect(await build()).toMatch(/^mailstop: compiled to /);
  }, 90_000);

  it("is current right after the build", () => {
    expect(compiled.staleReason()).toBeNull();
  });

  it("counts the OpenAPI documents among its inputs, which it carries parsed: an edited document makes it stale", () => {
    const manifest = JSON.parse(readFileSync(join(CLI, "dist", "inputs.json"), "utf8")) as Manifest;
    expect(Object.keys(manifest.inputs)).toEqual(expect.arrayContaining(["packages/openapi/openapi/openapi.yaml", "packages/openapi/openapi/admin.yaml"]));
  });

  it("counts as stale once a source it was built from changes or goes, not when only its mtime moves", () => {
    const root = mkdtempSync(join(tmpdir(), "mailstop-compiled-"));
    try {
      writeFileSync(join(root, "a.ts"), "export const a = 1;\n");
      writeFileSync(join(root, "b.ts"), "export const b = 2;\n");
      const manifest: Manifest = { inputs: { "a.ts": compiled.describe("a.ts", root), "b.ts": compiled.describe("b.ts", root) } };
      expect(compiled.changedInput(manifest, root)).toBeNull();
      // A checkout or copy touches the file; the content is the same.
      utimesSync(join(root, "b.ts"), new Date(), new Date(Date.now() + 60_000));
      expect(compiled.changedInput(manifest, root)).toBeNull();
      // Same size, other content.
      writeFileSync(join(root, "b.ts"), "export const b = 3;\n");
      expect(compiled.changedInput(manifest, root)).toBe("b.ts");
      writeFileSync(join(root, "b.ts"), "export const b = 2;\n");
      rmSync(join(root, "a.ts"));
      expect(compiled.changedInput(manifest, root)).toBe("a.ts");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  describe.each([
    ["on its embedded stand-ins", false],
    ["on PostgreSQL and Redis, its parser on a worker thread", true],
  ] as const)("serving everything %s", (_world, engines) => {
    let child: ChildProcess;
    let output = "";
    let dataDir: string;
    let database: { name: string; url: string } | undefined;
    const ports = { http: 0, smtp: 0, capture: 0 };

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "mailstop-compiled-"));
      Object.assign(ports, { http: await freePort(), smtp: await freePort(), capture: await freePort() });
      if (engines) database = await createFreshDatabase(runDatabaseUrl());
      child = spawn(process.execPath, [BIN, "serve", "--target", "all"], {
        env: {
          PATH: process.env.PATH ?? "",
          MAILSTOP_DATA_DIR: dataDir,
          MAILSTOP_HTTP_PORT: String(ports.http),
          MAILSTOP_SMTP_PORT: String(ports.smtp),
          MAILSTOP_CAPTURE_PORT: String(ports.capture),
          MAILSTOP_BOOTSTRAP_API_KEY: API_KEY,
          ...(database === undefined ? {} : { DATABASE_URL: database.url, REDIS_URL: runRedisUrl(), MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix(), MAILSTOP_PARSER_THREAD: "on" }),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      await eventually(async () => ((await fetch(`http://127.0.0.1:${ports.http}/ready`).catch(() => null))?.ok ? true : null), {
        timeoutMs: 90_000,
        what: `the compiled mailstop to be ready (its output: ${output.slice(-2000)})`,
      });
    }, 120_000);

    afterAll(async () => {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (database !== undefined) await dropDatabase(runDatabaseUrl(), database.name);
    }, 60_000);

    const started = (): Array<Record<string, unknown>> =>
      output
        .split("\n")
        .filter((line) => line.includes('"msg":"mailstop started"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);

    const api = (method: string, path: string, body?: unknown) =>
      rawRequest(`http://127.0.0.1:${ports.http}`, method, path, {
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    it(`runs the compiled JavaScript${engines ? ", on its parser thread too" : ""}, not the TypeScript`, () => {
      const lines = started();
      expect(lines.map(({ thread, code }) => ({ thread, code }))).toEqual(
        engines
          ? expect.arrayContaining([
              { thread: undefined, code: "compiled" },
              { thread: "parser", code: "compiled" },
            ])
          : [{ thread: undefined, code: "compiled" }],
      );
      if (engines) expect(lines).toHaveLength(2);
    });

    it("receives a message over SMTP, parses it and serves it over the API", async () => {
      const { json: inbox } = await api("POST", "/v1/inboxes", { tag: "compiled" });
      expect((await sendOneRaw(ports.smtp, inbox.address, "Compiled and parsed")).code).toBe(250);
      const listed = await eventually(async () => {
        const { json } = await api("GET", `/v1/messages?inbox=${encodeURIComponent(inbox.address)}`);
        return json?.data?.length === 1 ? json.data : null;
      }, { what: "the message, parsed" });
      expect(listed[0].subject).toBe("Compiled and parsed");
    });

    it("finds the files its sources read: articles, OpenAPI documents, the web viewer, Swagger UI's assets", async () => {
      const base = `http://127.0.0.1:${ports.http}`;
      const articles = (await (await fetch(`${base}/content/v1/articles`)).json()) as { data: unknown[] };
      expect(articles.data.length).toBeGreaterThan(0);
      const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string };
      expect(openapi.openapi).toMatch(/^3\./);
      const viewer = await fetch(`${base}/ui/`);
      expect({ status: viewer.status, type: viewer.headers.get("content-type") }).toEqual({ status: 200, type: expect.stringContaining("text/html") });
      expect((await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
    });

    if (!engines) {
      it("starts its embedded database from the install's template: no migration runs on a first start", () => {
        expect(output).toContain("embedded stand-ins for");
        expect(output).not.toContain('"msg":"database migrated"');
      });
    }
  });
});
