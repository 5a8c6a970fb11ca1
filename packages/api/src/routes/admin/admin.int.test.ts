import { SCOPES, sha256 } from "@mailstop/core";
import { TEST_ADMIN_TOKEN, expectError, rawRequest, uniqueProjectKey, useTestServer } from "@mailstop/testkit";

/** Every secret this file is handed in clear, for the secrecy checks at the end. */
const secrets: string[] = [];

const server = useTestServer({ project: false });

const BAD_REQUEST = { status: 400, code: "invalid_request", retryable: false } as const;

const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9a-z]{26}$`);

function admin(method: string, path: string, body?: unknown, authorization: string | null = `Bearer ${TEST_ADMIN_TOKEN}`, base = server.url) {
  const headers: Record<string, string> = {};
  if (authorization !== null) headers.authorization = authorization;
  if (body !== undefined) headers["content-type"] = "application/json";
  return rawRequest(base, method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

const authCheck = (apiKey: string) => server.request("GET", "/v1/auth/check", { apiKey });

async function bootstrap(body: Record<string, unknown> = { project_key: uniqueProjectKey("adm") }) {
  const outcome = await admin("POST", "/admin/v1/bootstrap", body);
  expect(outcome.status).toBe(201);
  secrets.push(outcome.json.api_key, outcome.json.smtp.password);
  return outcome.json;
}

/** Every admin route (packages/openapi/openapi/admin.yaml), with a body that would otherwise be valid. */
const ADMIN_ROUTES: ReadonlyArray<[method: string, path: string, body: unknown]> = [
  ["POST", "/admin/v1/bootstrap", {}],
  ["POST", "/admin/v1/organisations", { name: "acme" }],
  ["PATCH", "/admin/v1/organisations/org_00000000000000000000000000", { suspended: true }],
  ["POST", "/admin/v1/projects", { organisation_id: "org_00000000000000000000000000" }],
  ["PATCH", "/admin/v1/projects/prj_00000000000000000000000000", { limits: { max_concurrent_waits: 5 } }],
  ["POST", "/admin/v1/projects/prj_00000000000000000000000000/api-keys", {}],
  ["DELETE", "/admin/v1/api-keys/key_00000000000000000000000000", undefined],
  ["POST", "/admin/v1/projects/prj_00000000000000000000000000/smtp-credentials", undefined],
  ["POST", "/admin/v1/blocked-recipients", { address: "someone@example.com" }],
];

describe("Admin API", () => {
  describe("404 when MAILSTOP_ADMIN_TOKEN is unset", () => {
    const disabled = useTestServer({ env: { MAILSTOP_ADMIN_TOKEN: "" }, project: false });

    it("starts with the admin API disabled (an empty value counts as unset)", () => {
      expect(disabled.config.adminToken).toBeNull();
    });

    it.each(ADMIN_ROUTES)("%s %s answers 404 invalid_request, with or without a token", async (method, path, body) => {
      for (const authorization of [`Bearer ${TEST_ADMIN_TOKEN}`, null]) {
        const outcome = await admin(method, path, body, authorization, disabled.url);
        const error = expectError(outcome, { status: 404, code: "invalid_request", retryable: false });
        expect(error.reason).toContain(path);
        expect(error.reason).toContain("set MAILSTOP_ADMIN_TOKEN");
      }
    });

    it("still serves the public routes", async () => {
      expect((await rawRequest(disabled.url, "GET", "/health")).status).toBe(200);
    });
  });

  describe("401", () => {
    it.each(ADMIN_ROUTES)("%s %s without an Authorization header is unauthenticated", async (method, path, body) => {
      expectError(await admin(method, path, body, null), { status: 401, code: "unauthenticated", retryable: false });
    });

    it.each(ADMIN_ROUTES)("%s %s with a wrong token is invalid_api_key", async (method, path, body) => {
      expectError(await admin(method, path, body, "Bearer not-the-admin-token-0123456789abcdef"), { status: 401, code: "invalid_api_key", retryable: false });
    });

    it("refuses a token one character off, an API key, and the token sent as Basic", async () => {
      const oneOff = `${TEST_ADMIN_TOKEN.slice(0, -1)}${TEST_ADMIN_TOKEN.endsWith("9") ? "8" : "9"}`;
      const project = await bootstrap();
      for (const authorization of [`Bearer ${oneOff}`, `Bearer ${project.api_key}`, `Basic ${TEST_ADMIN_TOKEN}`, "Bearer"]) {
        expectError(await admin("POST", "/admin/v1/organisations", { name: "x" }, authorization), { status: 401, code: "invalid_api_key", retryable: false });
      }
    });

    it("authenticates before validating the body, and a refused call creates nothing", async () => {
      expectError(await admin("POST", "/admin/v1/bootstrap", { project_key: "Not.Valid" }, null), { status: 401, code: "unauthenticated", retryable: false });
      const key = uniqueProjectKey("adm");
      expectError(await admin("POST", "/admin/v1/bootstrap", { project_key: key }, null), { status: 401, code: "unauthenticated", retryable: false });
      expectError(await admin("POST", "/admin/v1/bootstrap", { project_key: key }, "Bearer wrong-token-wrong-token-wrong-token"), {
        status: 401,
        code: "invalid_api_key",
        retryable: false,
      });
      const created = await bootstrap({ project_key: key });
      expect(created.project_key).toBe(key);
    });
  });

  describe("POST /admin/v1/bootstrap", () => {
    describe("201", () => {
      it("returns organisation, project, a test key and the SMTP credential, and the key works", async () => {
        const key = uniqueProjectKey("adm");
        const outcome = await admin("POST", "/admin/v1/bootstrap", { project_key: key });
        expect(outcome.status).toBe(201);
        expect(outcome.json).toEqual({
          organisation_id: expect.stringMatching(ID("org")),
          project_id: expect.stringMatching(ID("prj")),
          project_key: key,
          api_key: expect.stringMatching(/^is_test_[A-Za-z0-9_-]{20,128}$/),
          api_key_id: expect.stringMatching(ID("key")),
          smtp: { host: server.config.captureClientHost, port: server.config.smtp.capturePublicPort, username: expect.any(String), password: expect.any(String) },
        });
        secrets.push(outcome.json.api_key, outcome.json.smtp.password);
        expect(outcome.json.smtp.username.length).toBeGreaterThan(0);
        expect(outcome.json.smtp.password.length).toBeGreaterThanOrEqual(16);

        const check = await authCheck(outcome.json.api_key);
        expect(check.status).toBe(200);
        expect(check.json.key).toEqual({ id: outcome.json.api_key_id, environment: "test", expires_at: null });
        expect(check.json.project).toEqual({ id: outcome.json.project_id, key });
        expect(check.json.scopes).toEqual([...SCOPES]);
      });

      it("needs no body: it picks a project key within the grammar", async () => {
        const outcome = await admin("POST", "/admin/v1/bootstrap");
        expect(outcome.status).toBe(201);
        secrets.push(outcome.json.api_key, outcome.json.smtp.password);
        expect(outcome.json.project_key).toMatch(/^[a-z0-9][a-z0-9-]{1,39}$/);
        expect((await authCheck(outcome.json.api_key)).json.project.key).toBe(outcome.json.project_key);
      });

      it("issues an is_live_ key for environment live", async () => {
        const project = await bootstrap({ project_key: uniqueProjectKey("adm"), environment: "live" });
        expect(project.api_key).toMatch(/^is_live_/);
        expect((await authCheck(project.api_key)).json.key.environment).toBe("live");
      });

      it("limits the key to the scopes asked for", async () => {
        const project = await bootstrap({ project_key: uniqueProjectKey("adm"), scopes: ["messages:wait", "inboxes:read"] });
        expect((await authCheck(project.api_key)).json.scopes).toEqual(["inboxes:read", "messages:wait"]);
      });

      it("creates the project in the region asked for", async () => {
        const project = await bootstrap({ project_key: uniqueProjectKey("adm"), region: "eu" });
        const error = expectError(await authCheck(project.api_key), { status: 403, code: "forbidden", retryable: false });
        expect(error.details).toEqual({ project_region: "eu" });
      });
    });

    describe("400", () => {
      it.each([
        ["a dot", "acme.dev"],
        ["capitals", "Acme"],
        ["a single character", "a"],
        ["a leading hyphen", "-acme"],
        ["41 characters", "a".repeat(41)],
      ])("refuses a project_key with %s", async (_case, projectKey) => {
        const error = expectError(await admin("POST", "/admin/v1/bootstrap", { project_key: projectKey }), BAD_REQUEST);
        expect(error.details?.errors).toEqual([expect.objectContaining({ in: "body", path: "/project_key" })]);
      });

      it("refuses an unknown scope, environment or property", async () => {
        for (const [body, path] of [
          [{ scopes: ["inboxes:admin"] }, "/scopes/0"],
          [{ environment: "prod" }, "/environment"],
          [{ project: "x" }, "/project"],
        ] as const) {
          const error = expectError(await admin("POST", "/admin/v1/bootstrap", body), BAD_REQUEST);
          expect(error.details?.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
        }
      });
    });

    describe("409", () => {
      it("gives conflict for a project key already taken, creating nothing", async () => {
        const first = await bootstrap();
        const error = expectError(await admin("POST", "/admin/v1/bootstrap", { project_key: first.project_key }), { status: 409, code: "conflict", retryable: false });
        expect(error.reason).toContain(first.project_key);
        // All or nothing: the organisation the refused call began (named after the key) was rolled back.
        const organisations = await server.db.selectFrom("organisations").select("id").where("name", "=", first.project_key).execute();
        expect(organisations).toEqual([{ id: first.organisation_id }]);
      });
    });
  });

  describe("organisations", () => {
    it("POST creates an organisation: 201 { id, name, suspended: false }", async () => {
      const outcome = await admin("POST", "/admin/v1/organisations", { name: "Acme Testing" });
      expect(outcome.status).toBe(201);
      expect(outcome.json).toEqual({ id: expect.stringMatching(ID("org")), name: "Acme Testing", suspended: false, organisation_limits: false, limits: { monthly_messages: null, storage_bytes: null } });
      const limited = await admin("POST", "/admin/v1/organisations", { name: "Limited", organisation_limits: true });
      expect(limited.json.organisation_limits).toBe(true);
    });

    it("POST refuses a missing or empty name with 400", async () => {
      for (const body of [{}, { name: "" }]) {
        const error = expectError(await admin("POST", "/admin/v1/organisations", body), BAD_REQUEST);
        expect(error.details?.errors).toEqual([expect.objectContaining({ path: "/name" })]);
      }
    });

    it("PATCH suspends and reinstates: 200 with the organisation", async () => {
      const created = await admin("POST", "/admin/v1/organisations", { name: "Patchable" });
      const suspended = await admin("PATCH", `/admin/v1/organisations/${created.json.id}`, { suspended: true });
      expect(suspended.status).toBe(200);
      expect(suspended.json).toEqual({ id: created.json.id, name: "Patchable", suspended: true, organisation_limits: false, limits: { monthly_messages: null, storage_bytes: null } });
      const limits = await admin("PATCH", `/admin/v1/organisations/${created.json.id}`, { organisation_limits: true });
      expect(limits.json).toEqual({ id: created.json.id, name: "Patchable", suspended: true, organisation_limits: true, limits: { monthly_messages: null, storage_bytes: null } });
      const reinstated = await admin("PATCH", `/admin/v1/organisations/${created.json.id}`, { suspended: false });
      expect(reinstated.json.suspended).toBe(false);
    });

    it("PATCH sets, keeps and removes the organisation's limits, each on its own", async () => {
      const created = await admin("POST", "/admin/v1/organisations", { name: "Metered" });
      const path = `/admin/v1/organisations/${created.json.id}`;
      const both = await admin("PATCH", path, { limits: { monthly_messages: 500, storage_bytes: 1_000_000 } });
      expect(both.status).toBe(200);
      expect(both.json.limits).toEqual({ monthly_messages: 500, storage_bytes: 1_000_000 });
      expect((await admin("PATCH", path, { limits: { storage_bytes: null } })).json.limits).toEqual({ monthly_messages: 500, storage_bytes: null });
      expect((await admin("PATCH", path, { suspended: false })).json.limits).toEqual({ monthly_messages: 500, storage_bytes: null });
      expect((await admin("PATCH", path, {})).json).toEqual({ ...both.json, limits: { monthly_messages: 500, storage_bytes: null } });
      for (const limits of [{ monthly_messages: -1 }, { storage_bytes: 1.5 }, { other: 1 }]) {
        expectError(await admin("PATCH", path, { limits }), BAD_REQUEST);
      }
      expect((await admin("PATCH", path, {})).json.limits).toEqual({ monthly_messages: 500, storage_bytes: null });
    });

    it("PATCH of an unknown organisation is 404 invalid_request", async () => {
      const error = expectError(await admin("PATCH", "/admin/v1/organisations/org_00000000000000000000000000", { suspended: true }), {
        status: 404,
        code: "invalid_request",
        retryable: false,
      });
      expect(error.reason).toContain("org_00000000000000000000000000");
    });
  });

  describe("projects", () => {
    let organisationId: string;
    beforeAll(async () => {
      organisationId = (await admin("POST", "/admin/v1/organisations", { name: "Projects" })).json.id;
    });

    it("POST creates a project: 201 { id, key, organisation_id, region }", async () => {
      const key = uniqueProjectKey("adm");
      const outcome = await admin("POST", "/admin/v1/projects", { organisation_id: organisationId, key });
      expect(outcome.status).toBe(201);
      expect(outcome.json).toEqual({ id: expect.stringMatching(ID("prj")), key, organisation_id: organisationId, region: "us" });
      const eu = await admin("POST", "/admin/v1/projects", { organisation_id: organisationId, region: "eu" });
      expect(eu.status).toBe(201);
      expect(eu.json.region).toBe("eu");
      expect(eu.json.key).toMatch(/^[a-z0-9][a-z0-9-]{1,39}$/);
    });

    it("POST with an unknown organisation_id is 400 invalid_request", async () => {
      const error = expectError(await admin("POST", "/admin/v1/projects", { organisation_id: "org_00000000000000000000000000" }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([expect.objectContaining({ path: "/organisation_id" })]);
    });

    it("POST with a taken key is 409 conflict", async () => {
      const taken = await bootstrap();
      const error = expectError(await admin("POST", "/admin/v1/projects", { organisation_id: organisationId, key: taken.project_key }), {
        status: 409,
        code: "conflict",
        retryable: false,
      });
      expect(error.details).toEqual({ project_key: taken.project_key });
    });

    it("POST with a key outside the grammar is 400", async () => {
      const error = expectError(await admin("POST", "/admin/v1/projects", { organisation_id: organisationId, key: "Has.Dot" }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([expect.objectContaining({ path: "/key" })]);
    });

    it("PATCH sets the limits and returns the project with them", async () => {
      const project = await bootstrap();
      const set = { max_concurrent_waits: 7, ingest_ceiling: 1000, monthly_messages: 300, rate_limit_read: 20, rate_limit_write: 5 };
      const outcome = await admin("PATCH", `/admin/v1/projects/${project.project_id}`, { limits: set });
      expect(outcome.status).toBe(200);
      expect(outcome.json).toEqual({
        id: project.project_id,
        key: project.project_key,
        organisation_id: project.organisation_id,
        region: "us",
        limits: set,
      });
      const partial = await admin("PATCH", `/admin/v1/projects/${project.project_id}`, { limits: { ingest_ceiling: null, rate_limit_read: null } });
      const left = { ...set, ingest_ceiling: null, rate_limit_read: null };
      expect(partial.json.limits).toEqual(left);
      const unchanged = await admin("PATCH", `/admin/v1/projects/${project.project_id}`, { limits: {} });
      expect(unchanged.json.limits).toEqual(left);
    });

    it("PATCH refuses a limit out of range with 400", async () => {
      const project = await bootstrap();
      const error = expectError(await admin("PATCH", `/admin/v1/projects/${project.project_id}`, { limits: { max_concurrent_waits: 0 } }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([expect.objectContaining({ path: "/limits/max_concurrent_waits" })]);
      for (const [field, value] of [["rate_limit_read", 0], ["rate_limit_write", 0], ["monthly_messages", -1]] as const) {
        const refused = expectError(await admin("PATCH", `/admin/v1/projects/${project.project_id}`, { limits: { [field]: value } }), BAD_REQUEST);
        expect(refused.details?.errors).toEqual([expect.objectContaining({ path: `/limits/${field}` })]);
      }
    });

    it("PATCH of an unknown project is 404 project_not_found", async () => {
      expectError(await admin("PATCH", "/admin/v1/projects/prj_00000000000000000000000000", { limits: { max_concurrent_waits: 5 } }), {
        status: 404,
        code: "project_not_found",
        retryable: false,
      });
    });
  });

  describe("api keys", () => {
    it("POST issues a key with a subset of scopes; it works within them and nowhere else", async () => {
      const project = await bootstrap();
      const outcome = await admin("POST", `/admin/v1/projects/${project.project_id}/api-keys`, { scopes: ["inboxes:read", "messages:wait"] });
      expect(outcome.status).toBe(201);
      expect(outcome.json).toEqual({
        id: expect.stringMatching(ID("key")),
        key: expect.stringMatching(/^is_test_/),
        scopes: ["inboxes:read", "messages:wait"],
        environment: "test",
        expires_at: null,
      });
      secrets.push(outcome.json.key);
      const check = await authCheck(outcome.json.key);
      expect(check.json.scopes).toEqual(["inboxes:read", "messages:wait"]);
      expect(check.json.key.id).toBe(outcome.json.id);
      const list = await server.request("GET", "/v1/inboxes", { apiKey: outcome.json.key });
      expect(list.status).toBe(200);
      const create = await server.request("POST", "/v1/inboxes", { apiKey: outcome.json.key, body: { tag: "x" } });
      expect(expectError(create, { status: 403, code: "insufficient_scope", retryable: false }).details).toEqual({ required_scope: "inboxes:write" });
    });

    it("POST defaults to every scope and test; live and an expiry are honoured", async () => {
      const project = await bootstrap();
      const all = await admin("POST", `/admin/v1/projects/${project.project_id}/api-keys`);
      expect(all.status).toBe(201);
      expect(all.json.scopes).toEqual([...SCOPES]);
      expect(all.json.environment).toBe("test");
      secrets.push(all.json.key);
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const live = await admin("POST", `/admin/v1/projects/${project.project_id}/api-keys`, { environment: "live", expires_at: expiresAt });
      expect(live.json).toMatchObject({ environment: "live", expires_at: expiresAt });
      expect(live.json.key).toMatch(/^is_live_/);
      secrets.push(live.json.key);
      expect((await authCheck(live.json.key)).json.key).toEqual({ id: live.json.id, environment: "live", expires_at: expiresAt });
    });

    it("POST for an unknown project is 404 project_not_found", async () => {
      expectError(await admin("POST", "/admin/v1/projects/prj_00000000000000000000000000/api-keys", {}), { status: 404, code: "project_not_found", retryable: false });
    });

    it("DELETE revokes: 200 { id, revoked: true }, and again is still 200", async () => {
      const project = await bootstrap();
      const first = await admin("DELETE", `/admin/v1/api-keys/${project.api_key_id}`);
      expect(first.status).toBe(200);
      expect(first.json).toEqual({ id: project.api_key_id, revoked: true });
      expectError(await authCheck(project.api_key), { status: 401, code: "invalid_api_key", retryable: false });
      expect((await admin("DELETE", `/admin/v1/api-keys/${project.api_key_id}`)).json).toEqual({ id: project.api_key_id, revoked: true });
    });

    it("DELETE of an unknown key is 404 invalid_request", async () => {
      expectError(await admin("DELETE", "/admin/v1/api-keys/key_00000000000000000000000000"), { status: 404, code: "invalid_request", retryable: false });
    });
  });

  describe("smtp credentials", () => {
    it("POST replaces the previous credential: the old password's hash is gone", async () => {
      const project = await bootstrap();
      const rowsOf = () => server.db.selectFrom("smtp_credentials").selectAll().where("project_id", "=", project.project_id).execute();
      const before = await rowsOf();
      expect(before).toHaveLength(1);
      expect(Buffer.from(before[0]!.password_hash).equals(sha256(project.smtp.password))).toBe(true);

      const outcome = await admin("POST", `/admin/v1/projects/${project.project_id}/smtp-credentials`);
      expect(outcome.status).toBe(201);
      expect(outcome.json).toEqual({ username: project.smtp.username, password: expect.any(String) });
      secrets.push(outcome.json.password);
      expect(outcome.json.password).not.toBe(project.smtp.password);

      const after = await rowsOf();
      expect(after).toHaveLength(1);
      expect(Buffer.from(after[0]!.password_hash).equals(sha256(outcome.json.password))).toBe(true);
      const oldHash = await server.db.selectFrom("smtp_credentials").select("project_id").where("password_hash", "=", sha256(project.smtp.password)).execute();
      expect(oldHash).toEqual([]);
    });

    it("POST for an unknown project is 404 project_not_found", async () => {
      expectError(await admin("POST", "/admin/v1/projects/prj_00000000000000000000000000/smtp-credentials"), { status: 404, code: "project_not_found", retryable: false });
    });
  });

  describe("blocked recipients", () => {
    it("POST stores the lower-cased address: 201 { address }", async () => {
      const local = uniqueProjectKey("Bad.Actor");
      const outcome = await admin("POST", "/admin/v1/blocked-recipients", { address: `${local}@Example.COM` });
      expect(outcome.status).toBe(201);
      const lower = `${local.toLowerCase()}@example.com`;
      expect(outcome.json).toEqual({ address: lower });
      const rows = await server.db.selectFrom("blocked_recipients").select("address").where("address", "=", lower).execute();
      expect(rows).toEqual([{ address: lower }]);
      // Blocking again is not an error.
      expect((await admin("POST", "/admin/v1/blocked-recipients", { address: lower })).status).toBe(201);
    });

    it("POST refuses something that is not an address with 400", async () => {
      const error = expectError(await admin("POST", "/admin/v1/blocked-recipients", { address: "not an address" }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([expect.objectContaining({ path: "/address" })]);
    });
  });

  describe("secrets", () => {
    it("stores the API key only as its SHA-256 and neither the key nor the password in clear", async () => {
      const project = await bootstrap();
      const row = await server.db.selectFrom("api_keys").selectAll().where("id", "=", project.api_key_id).executeTakeFirstOrThrow();
      expect(Buffer.from(row.key_hash).equals(sha256(project.api_key))).toBe(true);

      // Every column of every row, as text (bytea columns as hex and as raw bytes).
      const rows = [
        ...(await server.db.selectFrom("api_keys").selectAll().execute()),
        ...(await server.db.selectFrom("smtp_credentials").selectAll().execute()),
      ];
      const cells = rows.flatMap((r) => Object.values(r as Record<string, unknown>));
      const stored = cells
        .map((cell) => (Buffer.isBuffer(cell) ? `${cell.toString("hex")} ${cell.toString("latin1")}` : cell instanceof Date ? cell.toISOString() : String(cell)))
        .join("\n");
      expect(stored).toContain(project.project_id);
      for (const secret of [project.api_key, project.smtp.password, ...secrets]) {
        expect(stored).not.toContain(secret);
        // bytea columns render as hex: the secret's bytes must not be stored either.
        expect(stored).not.toContain(Buffer.from(secret, "utf8").toString("hex"));
        expect(stored).not.toContain(secret.slice(8, 28));
      }
    });

    it("never logs the API key, the SMTP password, the admin token or the Authorization header", async () => {
      const project = await bootstrap();
      const auth = { authorization: `Bearer ${project.api_key}` };
      expect((await rawRequest(server.url, "GET", "/v1/auth/check?scopes=inboxes:read", { headers: auth })).status).toBe(200);
      expect((await rawRequest(server.url, "GET", "/v1/inboxes", { headers: auth })).status).toBe(200);
      const failed = await rawRequest(server.url, "POST", "/v1/inboxes", { headers: { ...auth, "content-type": "application/json" }, body: "{nope" });
      expect(failed.status).toBe(400);
      expect((await rawRequest(server.url, "GET", "/v1/auth/check?environment=production", { headers: auth })).status).toBe(403);
      expect((await rawRequest(server.url, "GET", "/v1/inboxes/ibx_00000000000000000000000000", { headers: auth })).status).toBe(404);
      expect((await admin("POST", "/admin/v1/organisations", { name: "x" }, `Bearer ${TEST_ADMIN_TOKEN}x`)).status).toBe(401);

      const logs = server.logs();
      // The log is not empty: it holds the access lines of these requests.
      expect(logs).toContain("/v1/auth/check");
      expect(logs).toContain(failed.headers.get("x-request-id"));
      for (const secret of [project.api_key, project.smtp.password, TEST_ADMIN_TOKEN, `Bearer ${project.api_key}`, ...secrets]) {
        expect(logs).not.toContain(secret);
      }
      expect(logs.toLowerCase()).not.toContain("authorization");
    });
  });
});
