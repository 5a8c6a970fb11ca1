import { expectError, rawRequest, startTestServer } from "@mailstop/testkit";

// In the integration and embedded worlds, not the fleet's (a *.in-process.int.test.ts file): it
// destroys the server's own database pool.

const REQUEST_ID = /^req_[0-9a-z]{26}$/;

describe("GET /health", () => {
  it("touches no database: it keeps answering 200 after the pool is destroyed, while an authenticated route fails with 500 internal", async () => {
    const isolated = await startTestServer();
    try {
      const tenant = await isolated.bootstrap();
      expect((await rawRequest(isolated.url, "GET", "/v1/auth/check", { headers: { authorization: `Bearer ${tenant.apiKey}` } })).status).toBe(200);

      await isolated.db.destroy();

      const health = await rawRequest(isolated.url, "GET", "/health");
      expect(health.status).toBe(200);
      expect(health.json).toEqual({ status: "ok", brand: "mailstop", region: "us", time: expect.any(String) });

      // A route that reads the database (the key itself may be answered from the key cache).
      const failed = await rawRequest(isolated.url, "GET", "/v1/inboxes", { headers: { authorization: `Bearer ${tenant.apiKey}` } });
      const error = expectError(failed, { status: 500, code: "internal", retryable: true });
      expect(error.details).toBeUndefined();
      const requestId = failed.headers.get("x-request-id");
      expect(requestId).toMatch(REQUEST_ID);
      // The failure is logged under the same request id, for the operator to find.
      expect(isolated.logs()).toContain(requestId);

      expect((await rawRequest(isolated.url, "GET", "/health")).status).toBe(200);
      // Readiness does look at the engines: this server is not ready without its database.
      const ready = expectError(await rawRequest(isolated.url, "GET", "/ready"), { status: 503, code: "internal", retryable: true });
      expect(ready.details).toEqual({ not_ready: ["database"] });
    } finally {
      await isolated.stop();
    }
  });
});
