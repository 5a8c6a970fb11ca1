import { randomBytes } from "node:crypto";
import { sha256 } from "@mailstop/core";
// The test kit is imported by relative path: @mailstop/runtime does not list @mailstop/testkit.
import { type TestServer, createFreshDatabase, dropDatabase, runServerUrl, rawRequest, startTestServer } from "@mailstop/testkit";
import { TARGET_NAMES, isTarget, startOrder } from "./index";

const serverUrl = runServerUrl();
const databases: string[] = [];
const running: TestServer[] = [];

async function freshDatabase(): Promise<string> {
  const { name, url } = await createFreshDatabase(serverUrl, "mailstop_first_start");
  databases.push(name);
  return url;
}

/** Starts the monolithic target on `url`, without an admin token unless `env` sets one. */
async function startAll(url: string, env: Record<string, string> = { MAILSTOP_ADMIN_TOKEN: "" }): Promise<TestServer> {
  const server = await startTestServer({ target: "all", databaseUrl: url, env: { DATABASE_URL: url, ...env } });
  running.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  await server.stop();
  running.splice(running.indexOf(server), 1);
}

afterAll(async () => {
  for (const server of running) await server.stop();
  for (const name of databases) await dropDatabase(serverUrl, name);
});

const FIRST_START = "first start on an empty database; created project `local`";
const API_KEY = /(is_(?:test|live)_[A-Za-z0-9_-]{20,128})/;
const SMTP = /SMTP capture relay:\s+(\S+):(\d+)\s+user (\S+)\s+password (\S+)/;

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;
const authCheck = (server: TestServer, key: string) => rawRequest(server.url, "GET", "/v1/auth/check", { headers: { authorization: `Bearer ${key}` } });

describe("first start of the monolithic target (docs/operator.md \"First start\")", () => {
  describe("on an empty database without an admin token", () => {
    let url: string;
    let apiKey: string;

    beforeAll(async () => {
      url = await freshDatabase();
    });

    it("creates project `local` and prints, once, a working test key and the SMTP credential", async () => {
      const server = await startAll(url);
      const printed = server.printed();
      expect(occurrences(printed, FIRST_START)).toBe(1);
      expect(printed).toContain("generated now");

      apiKey = API_KEY.exec(printed)?.[1] ?? "";
      expect(apiKey).toMatch(/^is_test_[A-Za-z0-9_-]{43}$/);
      const smtp = SMTP.exec(printed);
      expect(smtp).not.toBeNull();
      const [, host, port, username, password] = smtp!;
      // The listener's own address (test servers bind 127.0.0.1): capture.mailstop.test resolves nowhere.
      expect({ host, port }).toEqual({ host: "127.0.0.1", port: String(server.config.smtp.capturePublicPort) });

      const check = await authCheck(server, apiKey);
      expect(check.status).toBe(200);
      expect(check.json.project.key).toBe("local");
      expect(check.json.key.environment).toBe("test");
      expect(check.json.server.api_origin).toBe(server.url);

      // The printed SMTP credential is the stored one (its hash), for project local.
      const credential = await server.db.selectFrom("smtp_credentials").selectAll().where("project_id", "=", check.json.project.id).executeTakeFirstOrThrow();
      expect(credential.username).toBe(username);
      expect(Buffer.from(credential.password_hash).equals(sha256(password!))).toBe(true);

      // The service made them: the audit trail names it, `first-start`, in no request.
      const audit = await rawRequest(server.url, "GET", "/v1/audit-events", { headers: { authorization: `Bearer ${apiKey}` } });
      expect(audit.json.data).toEqual([
        expect.objectContaining({ action: "smtp_credential.replaced", actor: { type: "system", id: "first-start" }, request_id: null }),
        expect.objectContaining({ action: "api_key.created", actor: { type: "system", id: "first-start" }, target: { type: "api_key", id: check.json.key.id } }),
      ]);

      // Secrets go to the printed text only, never to the log.
      expect(server.logs()).toContain("first start");
      expect(server.logs()).not.toContain(apiKey);
      expect(server.logs()).not.toContain(password);
      await stop(server);
    });

    it("prints nothing on a second start of the same database, and the key keeps working", async () => {
      const again = await startAll(url);
      expect(again.printed()).toBe("");
      expect((await authCheck(again, apiKey)).status).toBe(200);
      const projects = await again.db.selectFrom("projects").select("key").execute();
      expect(projects).toEqual([{ key: "local" }]);
      await stop(again);
    });
  });

  it("uses MAILSTOP_BOOTSTRAP_API_KEY as the key, exactly", async () => {
    const url = await freshDatabase();
    const fixed = `is_test_${randomBytes(32).toString("base64url")}`;
    expect(fixed).toMatch(/^is_test_[A-Za-z0-9_-]{43}$/);
    const server = await startAll(url, { MAILSTOP_ADMIN_TOKEN: "", MAILSTOP_BOOTSTRAP_API_KEY: fixed });
    const printed = server.printed();
    expect(occurrences(printed, FIRST_START)).toBe(1);
    expect(printed).toContain("taken from MAILSTOP_BOOTSTRAP_API_KEY");
    expect(API_KEY.exec(printed)?.[1]).toBe(fixed);
    const check = await authCheck(server, fixed);
    expect(check.status).toBe(200);
    expect(check.json.project.key).toBe("local");
    expect(check.json.key.environment).toBe("test");
    await stop(server);
  });

  it("on a restart, says nothing of bootstrap settings that match what they created, and names each one that does not, with why", async () => {
    const url = await freshDatabase();
    const key = `is_test_${randomBytes(32).toString("base64url")}`;
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    const settings = { MAILSTOP_ADMIN_TOKEN: "", MAILSTOP_BOOTSTRAP_API_KEY: key, MAILSTOP_BOOTSTRAP_SMTP_PASSWORD: password };
    await stop(await startAll(url, settings));

    const same = await startAll(url, settings);
    expect(same.printed()).toBe("");
    await stop(same);

    const other = `is_test_${randomBytes(32).toString("base64url")}`;
    const changed = await startAll(url, { ...settings, MAILSTOP_BOOTSTRAP_API_KEY: other, MAILSTOP_BOOTSTRAP_SMTP_PASSWORD: `${password}-changed` });
    const lines = changed.printed().trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^mailstop: MAILSTOP_BOOTSTRAP_API_KEY is ignored: bootstrap settings apply on a first start only, and the database of DATABASE_URL already holds projects \(local\); it is not a key of this database, so a request with it is refused \(401 invalid_api_key\)\.$/),
      expect.stringMatching(/^mailstop: MAILSTOP_BOOTSTRAP_SMTP_PASSWORD is ignored: .* it is not the capture relay password of `local`, so AUTH with it is refused \(535\)\.$/),
      expect.stringContaining("mailstop keys create --project local"),
    ]);
    // Secrets never appear in what it prints about them.
    expect(changed.printed()).not.toContain(other);
    expect((await authCheck(changed, other)).status).toBe(401);
    await stop(changed);
  });

  it("uses MAILSTOP_BOOTSTRAP_SMTP_PASSWORD as the capture relay password, and names MAILSTOP_CAPTURE_HOST when it is set", async () => {
    const url = await freshDatabase();
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    const server = await startAll(url, { MAILSTOP_ADMIN_TOKEN: "", MAILSTOP_BOOTSTRAP_SMTP_PASSWORD: password, MAILSTOP_CAPTURE_HOST: "relay.example.net" });
    const printed = server.printed();
    expect(printed).toContain("taken from MAILSTOP_BOOTSTRAP_SMTP_PASSWORD");
    const [, host, , username, shown] = SMTP.exec(printed)!;
    expect({ host, username, shown }).toEqual({ host: "relay.example.net", username: "local", shown: password });
    const credential = await server.db.selectFrom("smtp_credentials").selectAll().executeTakeFirstOrThrow();
    expect(Buffer.from(credential.password_hash).equals(sha256(password))).toBe(true);
    expect(server.logs()).not.toContain(password);
    await stop(server);
  });

  it("uses an is_live_ MAILSTOP_BOOTSTRAP_API_KEY as a live key", async () => {
    const url = await freshDatabase();
    const fixed = `is_live_${randomBytes(32).toString("base64url")}`;
    const server = await startAll(url, { MAILSTOP_ADMIN_TOKEN: "", MAILSTOP_BOOTSTRAP_API_KEY: fixed });
    expect(API_KEY.exec(server.printed())?.[1]).toBe(fixed);
    const check = await authCheck(server, fixed);
    expect(check.status).toBe(200);
    expect(check.json.key.environment).toBe("live");
    await stop(server);
  });

  it("creates no project when an admin token is set, and says so in one line", async () => {
    const url = await freshDatabase();
    const server = await startAll(url, {});
    expect(server.config.adminToken).not.toBeNull();
    expect(server.printed().trim().split("\n")).toEqual([expect.stringMatching(/MAILSTOP_ADMIN_TOKEN is set, so no project was created: create one with POST \/admin\/v1\/bootstrap/)]);
    expect(await server.db.selectFrom("organisations").select("id").execute()).toEqual([]);
    expect(await server.db.selectFrom("projects").select("id").execute()).toEqual([]);
    await stop(server);
  });

  it("with an admin token, names a bootstrap setting it therefore ignores", async () => {
    const server = await startAll(await freshDatabase(), { MAILSTOP_BOOTSTRAP_API_KEY: `is_test_${randomBytes(32).toString("base64url")}` });
    expect(server.printed().trim().split("\n")).toEqual([
      expect.stringMatching(/no project was created/),
      "mailstop: MAILSTOP_BOOTSTRAP_API_KEY is ignored: MAILSTOP_ADMIN_TOKEN is set, so no project was created to take it.",
    ]);
    await stop(server);
  });

  it("creates one project when two instances start at once on an empty database", async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([startAll(url), startAll(url)]);
    const printed = [a!.printed(), b!.printed()];
    expect(printed.filter((text) => text.includes(FIRST_START))).toHaveLength(1);
    expect(printed.filter((text) => text === "")).toHaveLength(1);
    expect(await a!.db.selectFrom("projects").select("key").execute()).toEqual([{ key: "local" }]);
    await stop(a!);
    await stop(b!);
  });
});

describe("targets", () => {
  it.each(["all", "api", "waiter"] as const)("starts %s with database first and http-server last", (target) => {
    const order = startOrder(target);
    expect(order[0]).toBe("database");
    expect(order[order.length - 1]).toBe("http-server");
    expect(new Set(order).size).toBe(order.length);
  });

  it("runs first-start in `all` only, after the database and before anything serves", () => {
    const all = startOrder("all");
    const at = (name: string) => all.indexOf(name as never);
    expect(at("first-start")).toBeGreaterThan(at("database"));
    for (const later of ["parser", "smtp-edge", "waiter", "api", "http-server"]) expect(at(later)).toBeGreaterThan(at("first-start"));
    expect(startOrder("api")).toEqual(expect.arrayContaining(["database", "api", "http-server"]));
    expect(startOrder("waiter")).toEqual(expect.arrayContaining(["database", "waiter", "http-server"]));
    for (const target of ["api", "waiter", "smtp-edge", "parser"] as const) expect(startOrder(target)).not.toContain("first-start");
    // The operations listener comes first (it touches no engine); then the database.
    for (const target of ["smtp-edge", "parser"] as const) expect(startOrder(target).slice(0, 2)).toEqual(["ops-server", "database"]);
  });

  it("knows the documented targets and refuses any other", () => {
    expect([...TARGET_NAMES].sort()).toEqual(["all", "api", "parser", "smtp-edge", "waiter"]);
    for (const target of TARGET_NAMES) expect(isTarget(target)).toBe(true);
    for (const invalid of ["nope", "", "ALL", "http-server", "database", "toString", "__proto__", "constructor"]) {
      expect(isTarget(invalid)).toBe(false);
    }
  });
});
