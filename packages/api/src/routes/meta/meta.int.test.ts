import { createHash } from "node:crypto";
import { publicDocument } from "@mailstop/openapi";
import { expectError, rawRequest, useTestServer } from "@mailstop/testkit";

const REQUEST_ID = /^req_[0-9a-z]{26}$/;

const server = useTestServer();

/**
 * Routes with the scope and rate class the documentation gives them (docs/api.md "Scopes" and
 * "Rate classes"). Scope `"meta"`: no credential; `null`: a key but no scope. A class of
 * `undefined`: not checked.
 */
const DOCUMENTED_ROUTES: ReadonlyArray<[method: string, path: string, scope: string | null, rateClass: string | undefined]> = [
  ["get", "/health", "meta", undefined],
  ["get", "/openapi.json", "meta", undefined],
  ["get", "/docs", "meta", undefined],
  ["get", "/.well-known/service-abuse", "meta", undefined],
  ["post", "/v1/fixtures/ensure", "inboxes:write", "write"],
  ["get", "/v1/auth/check", null, "read"],
  ["post", "/v1/inboxes/for-run", "inboxes:write", "write"],
  ["post", "/v1/inboxes/cleanup", "inboxes:write", "write"],
  ["post", "/v1/inboxes", "inboxes:write", "write"],
  ["get", "/v1/inboxes", "inboxes:read", "read"],
  ["post", "/v1/inboxes/{id}/stream-token", "messages:read", "write"],
  ["get", "/v1/inboxes/{id}", "inboxes:read", "read"],
  ["delete", "/v1/inboxes/{id}", "inboxes:write", "write"],
  ["post", "/v1/messages/wait", "messages:wait", "exempt"],
  ["get", "/v1/messages", "messages:read", "read"],
  ["get", "/v1/messages/{id}", "messages:read", "read"],
  ["get", "/v1/messages/{id}/body", "messages:read", "read"],
  ["get", "/v1/messages/{id}/checks", "messages:read", "read"],
  ["post", "/v1/messages/{id}/checks/links", "messages:read", "write"],
  ["get", "/v1/messages/{id}/attachments/{attachmentId}", "messages:read", "read"],
  ["delete", "/v1/messages/{id}", "messages:delete", "write"],
  ["get", "/stream/v1/inboxes/{id}/events", "messages:read", undefined],
  ["get", "/v1/usage", "usage:read", "read"],
  ["post", "/v1/domains", "domains:write", "write"],
  ["get", "/v1/domains", "domains:read", "read"],
  ["get", "/v1/domains/{id}", "domains:read", "read"],
  ["post", "/v1/domains/{id}/verify", "domains:write", "write"],
  ["delete", "/v1/domains/{id}", "domains:write", "write"],
  ["get", "/v1/webhooks", "webhooks:read", "read"],
  ["post", "/v1/webhooks", "webhooks:write", "write"],
  ["patch", "/v1/webhooks/{id}", "webhooks:write", "write"],
  ["post", "/v1/webhooks/{id}/rotate-secret", "webhooks:write", "write"],
  ["post", "/v1/webhooks/{id}/test", "webhooks:write", "write"],
  ["get", "/v1/webhooks/{id}/attempts", "webhooks:read", "read"],
  ["get", "/v1/retention", "inboxes:read", "read"],
  ["get", "/content/v1/articles", "meta", "read"],
  ["get", "/content/v1/articles/{slug}", "meta", "read"],
];

describe("GET /ready", () => {
  it("answers 200 once every module is started and its engines answer, without a key", async () => {
    const { status, json } = await rawRequest(server.url, "GET", "/ready");
    expect(status).toBe(200);
    expect(json).toEqual({ status: "ready" });
  });
});

describe("GET /health", () => {
  it("is exactly { status, brand, region, time } with an x-request-id", async () => {
    const before = Date.now();
    const { status, json, headers } = await rawRequest(server.url, "GET", "/health");
    expect(status).toBe(200);
    expect(json).toEqual({ status: "ok", brand: "mailstop", region: "us", time: expect.any(String) });
    expect(new Date(json.time).toISOString()).toBe(json.time);
    expect(new Date(json.time).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(json.time).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(headers.get("x-request-id")).toMatch(REQUEST_ID);
  });

  it("needs no credential and ignores a bad one", async () => {
    const { status } = await rawRequest(server.url, "GET", "/health", { headers: { authorization: "Bearer nonsense" } });
    expect(status).toBe(200);
  });
});

describe("GET /openapi.json", () => {
  let served: any;
  beforeAll(async () => {
    const { status, json, headers } = await rawRequest(server.url, "GET", "/openapi.json");
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    served = json;
  });

  it("is the parsed openapi.yaml, OpenAPI 3.1.0, version 0.1.0", () => {
    expect(served).toEqual(publicDocument());
    expect(served.openapi).toBe("3.1.0");
    expect(served.info.version).toBe("0.1.0");
  });

  it.each(DOCUMENTED_ROUTES)("declares %s %s with the documented scope and rate class", (method, path, scope, rateClass) => {
    const operation = served.paths?.[path]?.[method];
    expect(operation).toBeDefined();
    expect(typeof operation.operationId).toBe("string");
    if (scope === "meta") {
      expect(operation.security).toEqual([]);
      expect(operation["x-scope"]).toBeUndefined();
    } else {
      // Every other route takes the bearer key (the stream also takes a stream token).
      expect(operation.security ?? served.security).toEqual(expect.arrayContaining([{ bearerAuth: [] }]));
      expect(operation.security ?? served.security).not.toContainEqual({});
      expect("x-scope" in operation).toBe(true);
      expect(operation["x-scope"]).toBe(scope);
    }
    if (rateClass !== undefined) expect(operation["x-rate-class"]).toBe(rateClass);
  });

  it("declares the content routes under /content/v1/articles without a credential", () => {
    const content = Object.entries<Record<string, any>>(served.paths).filter(([path]) => path.startsWith("/content/v1/articles"));
    expect(content.length).toBeGreaterThan(0);
    for (const [, item] of content) expect(item.get?.security).toEqual([]);
  });

  it("does not publish the admin API", () => {
    expect(Object.keys(served.paths).filter((path) => path.startsWith("/admin"))).toEqual([]);
  });
});

describe("GET /docs", () => {
  it("is an HTML page whose every script and stylesheet is served by the server itself", async () => {
    const page = await rawRequest(server.url, "GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);

    const references = [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"|<link[^>]*\shref="([^"]+)"/g)].map((m) => m[1] ?? m[2]!);
    expect(references.length).toBeGreaterThanOrEqual(2);
    for (const reference of references) {
      const url = new URL(reference, `${server.url}/docs`);
      expect(url.origin).toBe(server.url);
      const asset = await fetch(url);
      expect({ reference, status: asset.status }).toEqual({ reference, status: 200 });
      const body = await asset.text();
      expect(body.length).toBeGreaterThan(1000);
    }
    // The page loads the document from this server too.
    const docUrl = /url:\s*"([^"]+)"/.exec(page.text)?.[1];
    expect(docUrl).toBeDefined();
    expect((await fetch(new URL(docUrl!, `${server.url}/docs`))).status).toBe(200);
  });
});

describe("GET /docs/ and GET /", () => {
  it("send the browser to /docs and to the web viewer, so a trailing slash does not leave the page blank", async () => {
    for (const [path, status, target] of [["/docs/", 301, "/docs"], ["/", 302, "/ui/"]] as const) {
      const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect({ path, status: response.status }).toEqual({ path, status });
      expect(new URL(response.headers.get("location")!, `${server.url}${path}`).pathname).toBe(target);
    }
  });
});

describe("security headers", () => {
  it("sends nosniff and a CSP that allows nothing on JSON answers and errors", async () => {
    for (const path of ["/health", "/openapi.json", "/v1/nope"]) {
      const response = await fetch(`${server.url}${path}`);
      expect({ path, nosniff: response.headers.get("x-content-type-options"), csp: response.headers.get("content-security-policy") }).toEqual({
        path,
        nosniff: "nosniff",
        csp: "default-src 'none'; frame-ancestors 'none'",
      });
    }
  });

  it("gives /docs a policy of its own that admits its one inline boot script by hash", async () => {
    const page = await fetch(`${server.url}/docs`);
    const csp = page.headers.get("content-security-policy")!;
    const boot = /<script>([^<]+)<\/script>/.exec(await page.text())![1]!;
    const hash = createHash("sha256").update(boot).digest("base64");
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  });
});

describe("GET /.well-known/service-abuse", () => {
  it("has every field of the abuse document, asserting no outbound delivery", async () => {
    const { status, json } = await rawRequest(server.url, "GET", "/.well-known/service-abuse");
    expect(status).toBe(200);
    expect(Object.keys(json).sort()).toEqual(["brand", "contact", "controls", "outbound_delivery", "receiving", "region", "service", "takedown"]);
    expect(json.brand).toBe("mailstop");
    expect(typeof json.contact).toBe("string");
    expect(json.contact.length).toBeGreaterThan(0);
    expect(json.region).toBe("us");
    expect(typeof json.service).toBe("string");
    expect(json.outbound_delivery).toBe("none");
    expect(Array.isArray(json.controls)).toBe(true);
    expect(json.controls.length).toBeGreaterThan(0);
    for (const control of json.controls) expect(typeof control).toBe("string");

    expect(Object.keys(json.takedown).sort()).toEqual(["acknowledgement_hours", "action_hours", "contact", "include"]);
    expect(typeof json.takedown.contact).toBe("string");
    expect(Number.isInteger(json.takedown.acknowledgement_hours)).toBe(true);
    expect(Number.isInteger(json.takedown.action_hours)).toBe(true);
    expect(json.takedown.acknowledgement_hours).toBeGreaterThan(0);
    expect(json.takedown.action_hours).toBeGreaterThanOrEqual(json.takedown.acknowledgement_hours);
    expect(json.takedown.include.length).toBeGreaterThan(0);
    for (const item of json.takedown.include) expect(typeof item).toBe("string");

    expect(json.receiving).toEqual({ mx_host: "mx.mailstop.test", shared_inbox_domain: "mailstop.test", capture_relay_host: "capture.mailstop.test" });
  });
});

describe("Errors of the HTTP layer", () => {
  describe("404", () => {
    it.each([
      ["GET", "/v1/nope"],
      ["PATCH", "/v1/inboxes"],
      ["GET", "/v2/inboxes"],
    ])("answers %s %s with HTTP 404, code invalid_request, naming the method and path", async (method, path) => {
      const outcome = await server.request(method, path);
      const error = expectError(outcome, { status: 404, code: "invalid_request", retryable: false });
      expect(error.reason).toContain(method);
      expect(error.reason).toContain(path);
      expect(outcome.headers.get("x-request-id")).toMatch(REQUEST_ID);
    });
  });

  describe("400", () => {
    it("refuses a body that is not JSON with invalid_request", async () => {
      const outcome = await rawRequest(server.url, "POST", "/v1/inboxes", {
        headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
        body: "{nope",
      });
      const error = expectError(outcome, { status: 400, code: "invalid_request", retryable: false });
      expect(Object.keys(error.details ?? {})).toEqual(["errors"]);
      expect(error.details?.errors).toEqual([expect.objectContaining({ in: "body", path: "/" })]);
      expect(outcome.headers.get("x-request-id")).toMatch(REQUEST_ID);
    });
  });

  describe("413", () => {
    it("refuses a JSON body over 1 MB with payload_too_large", async () => {
      const body = JSON.stringify({ tag: "big", labels: { filler: "x".repeat(1024 * 1024 + 16) } });
      const outcome = await rawRequest(server.url, "POST", "/v1/inboxes", {
        headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
        body,
      });
      const error = expectError(outcome, { status: 413, code: "payload_too_large", retryable: false });
      expect(error.details).toBeUndefined();
      expect(outcome.headers.get("x-request-id")).toMatch(REQUEST_ID);
    });

    it("accepts a body just under the limit as far as size goes (then validates it)", async () => {
      const body = JSON.stringify({ tag: "big", labels: { filler: "x".repeat(1000 * 1000) } });
      const outcome = await rawRequest(server.url, "POST", "/v1/inboxes", {
        headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
        body,
      });
      const error = expectError(outcome, { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "/labels/filler" })]));
    });
  });
});
