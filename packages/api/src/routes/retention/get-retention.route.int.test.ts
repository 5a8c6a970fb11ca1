import { RETENTION_SECONDS } from "@mailstop/core";
import { expectError, useTestServer } from "@mailstop/testkit";

// A reaper interval other than the default, so the answer is seen to come from the setting.
const server = useTestServer({ env: { MAILSTOP_REAP_INTERVAL_S: "45" } });

describe("GET /v1/retention", () => {
  describe("200", () => {
    it("answers the retention bounds the API enforces and the reaper's interval from the configuration", async () => {
      const { status, json } = await server.request("GET", "/v1/retention");
      expect(status).toBe(200);
      expect(json).toEqual({
        default_retention_seconds: RETENTION_SECONDS.default,
        min_retention_seconds: RETENTION_SECONDS.min,
        max_retention_seconds: RETENTION_SECONDS.max,
        reaper_interval_seconds: 45,
      });
      expect(json.reaper_interval_seconds).toBe(server.config.reapIntervalSeconds);
    });

    it("states the bounds inbox creation really applies: the default is what an inbox gets, the bounds are accepted, one past them is not", async () => {
      const { json: retention } = await server.request("GET", "/v1/retention");
      expect((await server.createInbox()).retention_seconds).toBe(retention.default_retention_seconds);
      for (const seconds of [retention.min_retention_seconds, retention.max_retention_seconds]) {
        expect((await server.createInbox({ retention_seconds: seconds })).retention_seconds).toBe(seconds);
      }
      for (const seconds of [retention.min_retention_seconds - 1, retention.max_retention_seconds + 1]) {
        const outcome = await server.request("POST", "/v1/inboxes", { body: { tag: "retention-bounds", retention_seconds: seconds } });
        expectError(outcome, { status: 400, code: "invalid_request", retryable: false });
      }
    });

    it("answers a key that holds only inboxes:read", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const { status } = await server.request("GET", "/v1/retention", { apiKey: reader.apiKey });
      expect(status).toBe(200);
    });
  });

  describe("401", () => {
    it("answers no credential with unauthenticated", async () => {
      expectError(await server.request("GET", "/v1/retention", { apiKey: null }), { status: 401, code: "unauthenticated", retryable: false });
    });

    it("answers a bad key with invalid_api_key", async () => {
      expectError(await server.request("GET", "/v1/retention", { apiKey: "nonsense" }), { status: 401, code: "invalid_api_key", retryable: false });
    });
  });

  describe("403", () => {
    it("answers a key without inboxes:read with insufficient_scope", async () => {
      const waiter = await server.bootstrap({ scopes: ["messages:wait", "inboxes:write"] });
      const error = expectError(await server.request("GET", "/v1/retention", { apiKey: waiter.apiKey }), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toMatchObject({ required_scope: "inboxes:read" });
    });
  });
});
