import { resolve } from "node:path";
import { createDatabase } from "@mailstop/db";
import {
  TEST_ADMIN_TOKEN,
  type TestServer,
  createFreshDatabase,
  dropDatabase,
  runServerUrl,
  rawRequest,
  startTestServer,
} from "@mailstop/testkit";
import { type Run, runCli } from "./run-cli.fixture";

const ROOT = resolve(__dirname, "../../..");
const serverUrl = runServerUrl();

/** `pnpm --silent mailstop …` from the repository root, in a clean environment plus `env`; never rejects. */
const mailstop = (args: string[], env: Record<string, string>): Promise<Run> => runCli("pnpm", ["--silent", "mailstop", ...args], { cwd: ROOT, env });

let server: TestServer;
let migrated: { name: string; url: string };
// Each spawned process costs ~2 s: the four are started together in beforeAll.
let bootstrapJson: Promise<Run>;
let bootstrapWithoutToken: Promise<Run>;
let badPort: Promise<Run>;
let migrate: Promise<Run>;

beforeAll(async () => {
  server = await startTestServer();
  migrated = await createFreshDatabase(serverUrl, "mailstop_cli_migrate");
  bootstrapJson = mailstop(["admin", "bootstrap", "--json"], { MAILSTOP_PUBLIC_URL: server.url, MAILSTOP_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  bootstrapWithoutToken = mailstop(["admin", "bootstrap"], { MAILSTOP_PUBLIC_URL: server.url });
  badPort = mailstop(["serve", "--target", "api"], { MAILSTOP_HTTP_PORT: "abc" });
  migrate = mailstop(["migrate"], { DATABASE_URL: migrated.url });
  await Promise.all([bootstrapJson, bootstrapWithoutToken, badPort, migrate]);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (migrated) await dropDatabase(serverUrl, migrated.name);
});

describe("mailstop CLI", () => {
  it("`admin bootstrap --json` prints the bootstrap JSON and nothing else, and the key works", async () => {
    const run = await bootstrapJson;
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const data = JSON.parse(run.stdout);
    expect(data).toEqual({
      organisation_id: expect.stringMatching(/^org_[0-9a-z]{26}$/),
      project_id: expect.stringMatching(/^prj_[0-9a-z]{26}$/),
      project_key: expect.stringMatching(/^[a-z0-9][a-z0-9-]{1,39}$/),
      api_key: expect.stringMatching(/^is_test_[A-Za-z0-9_-]{20,128}$/),
      api_key_id: expect.stringMatching(/^key_[0-9a-z]{26}$/),
      smtp: { host: "127.0.0.1", port: 2587, username: expect.any(String), password: expect.any(String) },
    });
    const check = await rawRequest(server.url, "GET", "/v1/auth/check", { headers: { authorization: `Bearer ${data.api_key}` } });
    expect(check.status).toBe(200);
    expect(check.json.project).toEqual({ id: data.project_id, key: data.project_key });
    expect(check.json.key.id).toBe(data.api_key_id);
  });

  it("`admin update-project` and `update-organisation` set and remove the limit fields (`none` removes)", async () => {
    const { project_id: projectId, organisation_id: organisationId } = JSON.parse((await bootstrapJson).stdout);
    const env = { MAILSTOP_PUBLIC_URL: server.url, MAILSTOP_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    const [project, organisation] = await Promise.all([
      mailstop(["admin", "update-project", projectId, "--monthly-messages", "300", "--rate-limit-read", "20", "--rate-limit-write", "none", "--json"], env),
      mailstop(["admin", "update-organisation", organisationId, "--organisation-limits", "true", "--monthly-messages", "500", "--storage-bytes", "none", "--json"], env),
    ]);
    expect({ code: project.code, stderr: project.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(project.stdout).limits).toEqual({ max_concurrent_waits: 100, ingest_ceiling: null, monthly_messages: 300, rate_limit_read: 20, rate_limit_write: null });
    expect({ code: organisation.code, stderr: organisation.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(organisation.stdout)).toMatchObject({ id: organisationId, organisation_limits: true, limits: { monthly_messages: 500, storage_bytes: null } });
  }, 60_000);

  it("`admin bootstrap` without MAILSTOP_ADMIN_TOKEN fails with a line naming it", async () => {
    const run = await bootstrapWithoutToken;
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n").some((line) => line.includes("MAILSTOP_ADMIN_TOKEN"))).toBe(true);
  });

  it("`serve` with MAILSTOP_HTTP_PORT=abc exits 1 with a line naming the variable", async () => {
    const run = await badPort;
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("MAILSTOP_HTTP_PORT");
  });

  it("`migrate` applies the migrations of a fresh database and prints them", async () => {
    const run = await migrate;
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const lines = run.stdout.trim().split("\n");
    expect(lines).toEqual(expect.arrayContaining(["applied 2026_11_22_000100_create_tenancy", "applied 2026_11_22_000300_create_messages"]));
    for (const line of lines) expect(line).toMatch(/^applied \d{4}_\d{2}_\d{2}_\d{6}_[a-z_]+$/);
    // What it printed is what the database recorded, in order.
    const db = createDatabase(migrated.url, { maxConnections: 1 });
    try {
      const recorded: { name: string }[] = await (db as any).selectFrom("kysely_migration").select("name").orderBy("name").execute();
      expect(lines).toEqual(recorded.map((row) => `applied ${row.name}`));
    } finally {
      await db.destroy();
    }
  });
});
