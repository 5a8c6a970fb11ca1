import { SCOPES, type Scope } from "@mailstop/core";
import { TEST_ADMIN_TOKEN, expectError, useTestServer } from "@mailstop/testkit";

const server = useTestServer();

const check = (query = "", apiKey = server.apiKey) => server.request("GET", `/v1/auth/check${query}`, { apiKey });

/** A 200 check (with `query`) by a new project's key that holds `scopes`: the key, and the body. */
async function checkHolding(scopes: Scope[], query = "") {
  const key = await server.bootstrap({ scopes });
  const { status, json } = await check(query, key.apiKey);
  expect(status).toBe(200);
  return { key, json };
}

describe("GET /v1/auth/check", () => {
  describe("200", () => {
    it("returns exactly the documented key context for a test key", async () => {
      const { status, json, headers } = await check();
      expect(status).toBe(200);
      expect(headers.get("content-type")).toMatch(/^application\/json/);
      expect(json).toEqual({
        status: "authenticated",
        key: { id: server.project.apiKeyId, environment: "test", expires_at: null },
        project: { id: server.project.projectId, key: server.project.projectKey },
        scopes: [...SCOPES],
        server: { environment: "local", region: "us", api_origin: server.url },
      });
      expect(server.project.apiKeyId).toMatch(/^key_[0-9a-z]{26}$/);
      expect(server.project.projectId).toMatch(/^prj_[0-9a-z]{26}$/);
    });

    it("reports environment live for an is_live_ key", async () => {
      const live = await server.bootstrap({ environment: "live" });
      expect(live.apiKey.startsWith("is_live_")).toBe(true);
      const { status, json } = await check("", live.apiKey);
      expect(status).toBe(200);
      expect(json.key).toEqual({ id: live.apiKeyId, environment: "live", expires_at: null });
      expect(json.project).toEqual({ id: live.projectId, key: live.projectKey });
    });

    it("reports a key's expiry instant", async () => {
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const issued = await server.request("POST", `/admin/v1/projects/${server.project.projectId}/api-keys`, { apiKey: TEST_ADMIN_TOKEN, body: { expires_at: expiresAt } });
      expect(issued.status).toBe(201);
      const { status, json } = await check("", issued.json.key);
      expect(status).toBe(200);
      expect(json.key).toEqual({ id: issued.json.id, environment: "test", expires_at: expiresAt });
    });

    it("lists only the scopes the key holds, in the canonical order", async () => {
      const { json } = await checkHolding(["messages:wait", "inboxes:read"]);
      expect(json.scopes).toEqual(["inboxes:read", "messages:wait"]);
    });

    it("passes when project_id names the key's project by id", async () => {
      const { status, json } = await check(`?project_id=${server.project.projectId}`);
      expect(status).toBe(200);
      expect(json.project.id).toBe(server.project.projectId);
    });

    it("passes when project_id names the key's project by key", async () => {
      expect((await check(`?project_id=${server.project.projectKey}`)).status).toBe(200);
    });

    it("passes when environment is local on a local server", async () => {
      expect((await check("?environment=local")).status).toBe(200);
    });

    it("passes when every expected scope is held, and checking grants nothing", async () => {
      const { json } = await checkHolding(["inboxes:read", "messages:wait"], "?scopes=inboxes:read,messages:wait");
      expect(json.scopes).toEqual(["inboxes:read", "messages:wait"]);
    });

    it("passes with every expectation at once", async () => {
      const query = `?project_id=${server.project.projectKey}&environment=local&scopes=${encodeURIComponent("inboxes:write, usage:read")}`;
      expect((await check(query)).status).toBe(200);
    });

    it("needs no scope: a key without any scope can call it", async () => {
      const { key, json } = await checkHolding([]);
      expect(json.scopes).toEqual([]);
      expect(json.project).toEqual({ id: key.projectId, key: key.projectKey });
    });
  });

  describe("400", () => {
    it("refuses an unknown scope name as an invalid expectation", async () => {
      const error = expectError(await check("?scopes=inboxes:read,inboxes:admin"), { status: 400, code: "invalid_request", retryable: false });
      expect(Object.keys(error.details ?? {})).toEqual(["errors"]);
      expect(error.details?.errors).toEqual([expect.objectContaining({ in: "query", path: "/scopes" })]);
      expect(error.details?.errors[0].message).toContain("inboxes:admin");
    });

    it("refuses a project_id longer than 128 characters", async () => {
      const error = expectError(await check(`?project_id=${"p".repeat(129)}`), { status: 400, code: "invalid_request", retryable: false });
      expect(Object.keys(error.details ?? {})).toEqual(["errors"]);
      expect(error.details?.errors).toEqual([expect.objectContaining({ in: "query", path: "/project_id" })]);
    });

    it("accepts a project_id of exactly 128 characters as an expectation (then a mismatch)", async () => {
      const error = expectError(await check(`?project_id=${"p".repeat(128)}`), { status: 403, code: "forbidden", retryable: false });
      expect(error.details?.mismatch).toBe("project_id");
    });

    it("refuses an environment outside local, staging, production", async () => {
      const error = expectError(await check("?environment=dev"), { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors).toEqual([expect.objectContaining({ in: "query", path: "/environment" })]);
    });

    it("refuses a scopes expectation over 1024 characters", async () => {
      const long = Array.from({ length: 80 }, () => "inboxes:read").join(",");
      expect(long.length).toBeGreaterThan(1024);
      const error = expectError(await check(`?scopes=${long}`), { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors).toEqual([expect.objectContaining({ in: "query", path: "/scopes" })]);
    });
  });

  describe("403", () => {
    it("fails with forbidden naming project_id when the key belongs to another project", async () => {
      const other = await server.bootstrap();
      const error = expectError(await check(`?project_id=${other.projectId}`), { status: 403, code: "forbidden", retryable: false });
      expect(error.details).toEqual({ mismatch: "project_id", expected: other.projectId, actual: server.project.projectId });
      const byKey = expectError(await check(`?project_id=${other.projectKey}`), { status: 403, code: "forbidden", retryable: false });
      expect(byKey.details?.mismatch).toBe("project_id");
    });

    it("fails with forbidden naming environment when production is expected of a local server", async () => {
      const error = expectError(await check("?environment=production"), { status: 403, code: "forbidden", retryable: false });
      expect(error.details).toEqual({ mismatch: "environment", expected: "production", actual: "local" });
    });

    it("fails with insufficient_scope naming the missing scope", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const error = expectError(await check("?scopes=inboxes:read,messages:wait", reader.apiKey), {
        status: 403,
        code: "insufficient_scope",
        retryable: false,
      });
      expect(error.details?.required_scope).toBe("messages:wait");
    });

    it("does not let a scopeless key pass a scope expectation", async () => {
      const bare = await server.bootstrap({ scopes: [] });
      const error = expectError(await check("?scopes=inboxes:read", bare.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details?.required_scope).toBe("inboxes:read");
    });
  });

  describe("401", () => {
    it("gives unauthenticated without an Authorization header", async () => {
      expectError(await server.request("GET", "/v1/auth/check", { apiKey: null }), { status: 401, code: "unauthenticated", retryable: false });
    });

    it("gives invalid_api_key for an unknown key, before looking at expectations", async () => {
      const unknown = `is_test_${"A".repeat(43)}`;
      expectError(await check("?scopes=nope", unknown), { status: 401, code: "invalid_api_key", retryable: false });
    });
  });
});
