// The test kit is imported by relative path: @mailstop/http does not list @mailstop/testkit.
import { TEST_ADMIN_TOKEN, type TestProject, expectError, rawRequest, useTestServer } from "@mailstop/testkit";

const server = useTestServer();
/** An inbox of the suite's project, so "exists" and "does not exist" can be compared. */
let inboxId: string;

const MISSING_INBOX = "ibx_00000000000000000000000000";
const REQUEST_ID = /^req_[0-9a-z]{26}$/;

beforeAll(async () => {
  const created = await server.request("POST", "/v1/inboxes", { body: { tag: "auth.existing" } });
  expect(created.status).toBe(201);
  inboxId = created.json.id;
});

type Call = { name: string; method: string; path: () => string; body?: () => unknown };

/** The routes every rule is asserted on. */
const ROUTES: Call[] = [
  { name: "GET /v1/inboxes", method: "GET", path: () => "/v1/inboxes" },
  { name: "GET /v1/inboxes/{id}", method: "GET", path: () => `/v1/inboxes/${inboxId}` },
  { name: "POST /v1/inboxes", method: "POST", path: () => "/v1/inboxes", body: () => ({ tag: "auth.created" }) },
];

function call(route: { method: string; path: () => string; body?: () => unknown }, authorization?: string) {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (route.body !== undefined) headers["content-type"] = "application/json";
  return rawRequest(server.url, route.method, route.path(), {
    headers,
    ...(route.body === undefined ? {} : { body: JSON.stringify(route.body()) }),
  });
}

const bearer = (key: string) => `Bearer ${key}`;

function admin(method: string, path: string, body?: unknown) {
  return rawRequest(server.url, method, path, {
    headers: { authorization: bearer(TEST_ADMIN_TOKEN), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("Authentication (docs/api.md \"Authentication\")", () => {
  describe("401 unauthenticated: no Authorization header, raised before anything else", () => {
    it.each(ROUTES)("$name without a header", async (route) => {
      const error = expectError(await call(route), { status: 401, code: "unauthenticated", retryable: false });
      expect(error.details).toBeUndefined();
    });

    it("gives the same answer for an inbox that exists and one that does not (reveals nothing)", async () => {
      const existing = await call({ method: "GET", path: () => `/v1/inboxes/${inboxId}` });
      const missing = await call({ method: "GET", path: () => `/v1/inboxes/${MISSING_INBOX}` });
      expectError(missing, { status: 401, code: "unauthenticated", retryable: false });
      expect(missing.json).toEqual(existing.json);
      const byAddress = await call({ method: "GET", path: () => `/v1/inboxes/${encodeURIComponent("nobody.nothing@mailstop.test")}` });
      expect(byAddress.json).toEqual(existing.json);
    });

    it("comes before body validation: an invalid body without a header is 401", async () => {
      const invalid = await call({ method: "POST", path: () => "/v1/inboxes", body: () => ({ tag: "Has Space", extra: 1 }) });
      expectError(invalid, { status: 401, code: "unauthenticated", retryable: false });
      const noTag = await call({ method: "POST", path: () => "/v1/inboxes", body: () => ({}) });
      expectError(noTag, { status: 401, code: "unauthenticated", retryable: false });
    });

    it("comes before body parsing: a body that is not JSON, without a header, is 401", async () => {
      const outcome = await rawRequest(server.url, "POST", "/v1/inboxes", { headers: { "content-type": "application/json" }, body: "{nope" });
      expectError(outcome, { status: 401, code: "unauthenticated", retryable: false });
    });

    it("treats an empty Authorization header as missing", async () => {
      expectError(await call(ROUTES[0]!, ""), { status: 401, code: "unauthenticated", retryable: false });
    });
  });

  describe("401 invalid_api_key: malformed, unknown, revoked or expired key", () => {
    it.each(ROUTES)("$name with Basic credentials", async (route) => {
      const basic = `Basic ${Buffer.from(`user:${server.apiKey}`).toString("base64")}`;
      expectError(await call(route, basic), { status: 401, code: "invalid_api_key", retryable: false });
    });

    it.each(ROUTES)("$name with `Bearer` and nothing after it", async (route) => {
      expectError(await call(route, "Bearer"), { status: 401, code: "invalid_api_key", retryable: false });
    });

    it.each([
      ["another service's key", "sk_live_0123456789abcdefghijklmnop"],
      ["a mailstop-like prefix", "is_prod_0123456789abcdefghijklmnopqrstuvwxyz0"],
      ["an upper-case prefix", `IS_TEST_${"a".repeat(43)}`],
      ["the admin token", TEST_ADMIN_TOKEN],
      ["a prefix with too short a secret", "is_test_short"],
    ])("refuses %s", async (_case, key) => {
      for (const route of ROUTES) {
        expectError(await call(route, bearer(key)), { status: 401, code: "invalid_api_key", retryable: false });
      }
    });

    it.each([
      ["test", `is_test_${"A".repeat(43)}`],
      ["live", `is_live_${"b".repeat(43)}`],
    ])("refuses a well-formed %s key that was never issued", async (_env, key) => {
      for (const route of ROUTES) {
        expectError(await call(route, bearer(key)), { status: 401, code: "invalid_api_key", retryable: false });
      }
    });

    it("refuses a key revoked by the admin API on its very next request", async () => {
      const victim = await server.bootstrap();
      const list = ROUTES[0]!;
      expect((await call(list, bearer(victim.apiKey))).status).toBe(200);
      const revoked = await admin("DELETE", `/admin/v1/api-keys/${victim.apiKeyId}`);
      expect(revoked.status).toBe(200);
      expect(revoked.json).toEqual({ id: victim.apiKeyId, revoked: true });
      expectError(await call(list, bearer(victim.apiKey)), { status: 401, code: "invalid_api_key", retryable: false });
      expectError(await rawRequest(server.url, "GET", "/v1/auth/check", { headers: { authorization: bearer(victim.apiKey) } }), {
        status: 401,
        code: "invalid_api_key",
        retryable: false,
      });
    });

    it("refuses a key whose expires_at has passed, and accepts one that has not", async () => {
      const expired = await admin("POST", `/admin/v1/projects/${server.project.projectId}/api-keys`, { expires_at: new Date(Date.now() - 60_000).toISOString() });
      expect(expired.status).toBe(201);
      for (const route of ROUTES) {
        expectError(await call(route, bearer(expired.json.key)), { status: 401, code: "invalid_api_key", retryable: false });
      }
      const valid = await admin("POST", `/admin/v1/projects/${server.project.projectId}/api-keys`, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
      expect((await call(ROUTES[0]!, bearer(valid.json.key))).status).toBe(200);
    });

    it("checks the key before the organisation: a revoked key of a suspended organisation is invalid_api_key", async () => {
      const victim = await server.bootstrap();
      expect((await admin("DELETE", `/admin/v1/api-keys/${victim.apiKeyId}`)).status).toBe(200);
      expect((await admin("PATCH", `/admin/v1/organisations/${victim.organisationId}`, { suspended: true })).status).toBe(200);
      expectError(await call(ROUTES[0]!, bearer(victim.apiKey)), { status: 401, code: "invalid_api_key", retryable: false });
    });
  });

  describe("403 forbidden: region mismatch", () => {
    let eu: TestProject;
    beforeAll(async () => {
      eu = await server.bootstrap({ region: "eu" });
    });

    it.each(ROUTES)("$name with a key of an eu project on a us server", async (route) => {
      const error = expectError(await call(route, bearer(eu.apiKey)), { status: 403, code: "forbidden", retryable: false });
      expect(error.details).toEqual({ project_region: "eu" });
    });

    it("also on GET /v1/auth/check", async () => {
      const outcome = await rawRequest(server.url, "GET", "/v1/auth/check", { headers: { authorization: bearer(eu.apiKey) } });
      expect(expectError(outcome, { status: 403, code: "forbidden", retryable: false }).details).toEqual({ project_region: "eu" });
    });

    it("comes before the scope check", async () => {
      const euReader = await server.bootstrap({ region: "eu", scopes: ["inboxes:read"] });
      const outcome = await call(ROUTES[2]!, bearer(euReader.apiKey));
      expect(expectError(outcome, { status: 403, code: "forbidden", retryable: false }).details).toEqual({ project_region: "eu" });
    });
  });

  describe("403 abuse_suspended: a suspended organisation fails every request", () => {
    let tenant: TestProject;
    let tenantInbox: string;
    const routesOf = (): Call[] => [
      ...ROUTES.map((route) => (route.name === "GET /v1/inboxes/{id}" ? { ...route, path: () => `/v1/inboxes/${tenantInbox}` } : route)),
      { name: "GET /v1/auth/check", method: "GET", path: () => "/v1/auth/check" },
      { name: "POST /v1/inboxes/for-run", method: "POST", path: () => "/v1/inboxes/for-run", body: () => ({ run_id: "run-1" }) },
      { name: "POST /v1/inboxes/cleanup", method: "POST", path: () => "/v1/inboxes/cleanup", body: () => ({ tag_prefix: "nothing" }) },
      { name: "DELETE /v1/inboxes/{id}", method: "DELETE", path: () => `/v1/inboxes/${MISSING_INBOX}` },
      {
        name: "POST /v1/fixtures/ensure",
        method: "POST",
        path: () => "/v1/fixtures/ensure",
        body: () => ({ run_id: "run-1", manifest: { version: 1, fixtures: [{ name: "signup", retention_seconds: 600 }] } }),
      },
    ];

    beforeAll(async () => {
      tenant = await server.bootstrap();
      const created = await call({ method: "POST", path: () => "/v1/inboxes", body: () => ({ tag: "suspended.one" }) }, bearer(tenant.apiKey));
      tenantInbox = created.json.id;
    });

    it("refuses every route while suspended, including the auth check, and un-suspending restores access", async () => {
      const suspended = await admin("PATCH", `/admin/v1/organisations/${tenant.organisationId}`, { suspended: true });
      expect(suspended.status).toBe(200);
      expect(suspended.json).toMatchObject({ id: tenant.organisationId, suspended: true });
      for (const route of routesOf()) {
        const outcome = await call(route, bearer(tenant.apiKey));
        expectError(outcome, { status: 403, code: "abuse_suspended", retryable: false });
      }

      const restored = await admin("PATCH", `/admin/v1/organisations/${tenant.organisationId}`, { suspended: false });
      expect(restored.json).toMatchObject({ id: tenant.organisationId, suspended: false });
      const check = await call({ method: "GET", path: () => "/v1/auth/check" }, bearer(tenant.apiKey));
      expect(check.status).toBe(200);
      expect((await call(ROUTES[0]!, bearer(tenant.apiKey))).status).toBe(200);
      const got = await call({ method: "GET", path: () => `/v1/inboxes/${tenantInbox}` }, bearer(tenant.apiKey));
      expect(got.status).toBe(200);
      expect(got.json.id).toBe(tenantInbox);
    });

    it("comes before the scope check and before resource lookups", async () => {
      const bare = await server.bootstrap({ scopes: [] });
      expect((await admin("PATCH", `/admin/v1/organisations/${bare.organisationId}`, { suspended: true })).status).toBe(200);
      expectError(await call(ROUTES[2]!, bearer(bare.apiKey)), { status: 403, code: "abuse_suspended", retryable: false });
      expectError(await call({ method: "GET", path: () => `/v1/inboxes/${MISSING_INBOX}` }, bearer(bare.apiKey)), {
        status: 403,
        code: "abuse_suspended",
        retryable: false,
      });
    });
  });

  describe("403 insufficient_scope: the key lacks the route's scope", () => {
    it.each([
      ["GET /v1/inboxes", ROUTES[0]!, "inboxes:write" as const, "inboxes:read"],
      ["GET /v1/inboxes/{id}", ROUTES[1]!, "inboxes:write" as const, "inboxes:read"],
      ["POST /v1/inboxes", ROUTES[2]!, "inboxes:read" as const, "inboxes:write"],
    ])("%s", async (_name, route, held, required) => {
      const narrow = await server.bootstrap({ scopes: [held] });
      const error = expectError(await call(route, bearer(narrow.apiKey)), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: required });
    });

    it("comes before body validation and resource lookups", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const invalid = await call({ method: "POST", path: () => "/v1/inboxes", body: () => ({ tag: "Has Space" }) }, bearer(reader.apiKey));
      expect(expectError(invalid, { status: 403, code: "insufficient_scope", retryable: false }).details).toEqual({ required_scope: "inboxes:write" });
      const writer = await server.bootstrap({ scopes: ["inboxes:write"] });
      const missing = await call({ method: "GET", path: () => `/v1/inboxes/${MISSING_INBOX}` }, bearer(writer.apiKey));
      expect(expectError(missing, { status: 403, code: "insufficient_scope", retryable: false }).details).toEqual({ required_scope: "inboxes:read" });
    });

    it("lets a key holding the scope through to the resource: 404 inbox_not_found", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      expectError(await call({ method: "GET", path: () => `/v1/inboxes/${MISSING_INBOX}` }, bearer(reader.apiKey)), {
        status: 404,
        code: "inbox_not_found",
        retryable: false,
      });
    });
  });

  describe("x-request-id", () => {
    it("is on every response (200, 401, 403, 404, 400), well formed and unique per request", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const outcomes = [
        { status: 200, outcome: await call(ROUTES[0]!, bearer(server.apiKey)) },
        { status: 200, outcome: await call(ROUTES[0]!, bearer(server.apiKey)) },
        { status: 201, outcome: await call(ROUTES[2]!, bearer(server.apiKey)) },
        { status: 401, outcome: await call(ROUTES[0]!) },
        { status: 401, outcome: await call(ROUTES[0]!) },
        { status: 401, outcome: await call(ROUTES[0]!, "Bearer is_test_unknown_key_0123456789") },
        { status: 403, outcome: await call(ROUTES[2]!, bearer(reader.apiKey)) },
        { status: 404, outcome: await call({ method: "GET", path: () => `/v1/inboxes/${MISSING_INBOX}` }, bearer(server.apiKey)) },
        { status: 404, outcome: await rawRequest(server.url, "GET", "/v1/nope") },
        { status: 400, outcome: await call({ method: "POST", path: () => "/v1/inboxes", body: () => ({ tag: "Has Space" }) }, bearer(server.apiKey)) },
        { status: 200, outcome: await rawRequest(server.url, "GET", "/health") },
      ];
      const ids = outcomes.map(({ status, outcome }) => {
        expect(outcome.status).toBe(status);
        const id = outcome.headers.get("x-request-id");
        expect(id).toMatch(REQUEST_ID);
        return id;
      });
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
});
