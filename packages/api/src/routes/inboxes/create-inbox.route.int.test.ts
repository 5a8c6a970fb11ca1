import { newId, randomToken } from "@mailstop/core";
import { insertDomain } from "@mailstop/db";
import { expectError, useTestServer } from "@mailstop/testkit";
import { describeDomainRules } from "./inbox-domain-rules.fixture";

const server = useTestServer();

const create = (body: unknown, apiKey = server.apiKey) => server.request("POST", "/v1/inboxes", { body, apiKey });

describe("POST /v1/inboxes", () => {
  describe("201", () => {
    it("returns the inbox view on the shared domain, tag lower-cased", async () => {
      const { status, json } = await create({ tag: "Signup.Run-1", labels: { suite: "auth" } });
      expect(status).toBe(201);
      expect(json).toEqual({
        id: expect.stringMatching(/^ibx_[0-9a-z]{26}$/),
        address: `${server.project.projectKey}.signup.run-1@mailstop.test`,
        tag: "signup.run-1",
        domain: null,
        labels: { suite: "auth" },
        retention_seconds: 86400,
        expires_at: null,
        created_at: expect.any(String),
        last_message_at: null,
        message_count: 0,
      });
      expect(new Date(json.created_at).toISOString()).toBe(json.created_at);
    });

    it("is idempotent on the resulting address: the same tag returns the same inbox, unchanged", async () => {
      const first = await create({ tag: "idem.one", retention_seconds: 600 });
      const second = await create({ tag: "IDEM.ONE", retention_seconds: 900 });
      expect(second.status).toBe(201);
      expect(second.json.id).toBe(first.json.id);
      expect(second.json.retention_seconds).toBe(600);
    });

    it("accepts retention_seconds at both bounds", async () => {
      expect((await create({ tag: "ret.min", retention_seconds: 60 })).json.retention_seconds).toBe(60);
      expect((await create({ tag: "ret.max", retention_seconds: 2592000 })).json.retention_seconds).toBe(2592000);
    });

    it("creates on a verified domain of the project as <tag>@<domain>", async () => {
      const domain = `${randomToken(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}.example.com`;
      await insertDomain(server.db, { id: newId("domain"), projectId: server.project.projectId, domain, ownershipToken: "t", status: "verified" });
      const { status, json } = await create({ tag: "signup", domain: domain.toUpperCase() });
      expect(status).toBe(201);
      expect(json.address).toBe(`signup@${domain}`);
      expect(json.domain).toBe(domain);
    });

    it("treats the shared domain spelled out like an omitted domain", async () => {
      const { json } = await create({ tag: "spelled", domain: "mailstop.test" });
      expect(json.address).toBe(`${server.project.projectKey}.spelled@mailstop.test`);
      expect(json.domain).toBeNull();
    });
  });

  describe("400", () => {
    it.each([
      ["a space", { tag: "has space" }],
      ["an empty segment", { tag: "a..b" }],
      ["a non-ASCII letter", { tag: "café" }],
      ["a plus sign", { tag: "a+b" }],
      ["an empty tag", { tag: "" }],
      ["no tag", {}],
    ])("refuses a tag with %s, never slugifying it", async (_case, body) => {
      const error = expectError(await create(body), { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "/tag" })]));
    });

    it.each([59, 2592001, 1.5, "600"])("refuses retention_seconds %p", async (retention) => {
      const error = expectError(await create({ tag: "ret.bad", retention_seconds: retention }), { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors[0].path).toBe("/retention_seconds");
    });

    it("refuses properties the document does not declare", async () => {
      const error = expectError(await create({ tag: "x", retention: 60 }), { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors).toEqual([{ in: "body", path: "/retention", message: "is not an allowed property" }]);
    });

    it("refuses labels that are not strings or are too long", async () => {
      expectError(await create({ tag: "x", labels: { n: 1 } }), { status: 400, code: "invalid_request", retryable: false });
      expectError(await create({ tag: "x", labels: { ["k".repeat(65)]: "v" } }), { status: 400, code: "invalid_request", retryable: false });
      expectError(await create({ tag: "x", labels: { k: "v".repeat(257) } }), { status: 400, code: "invalid_request", retryable: false });
    });

    it("refuses more than 50 labels", async () => {
      const labels = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));
      expect((await create({ tag: "labels.fifty", labels: labels(50) })).status).toBe(201);
      const error = expectError(await create({ tag: "labels.many", labels: labels(51) }), { status: 400, code: "invalid_request", retryable: false });
      expect(error.details?.errors[0].path).toBe("/labels");
    });

    it("refuses a tag that makes the address's local part longer than SMTP's 64 octets, and accepts one of exactly 64", async () => {
      // <project key>.<tag>: the key and its dot come first.
      const room = 64 - server.project.projectKey.length - 1;
      const fits = await create({ tag: "t".repeat(room) });
      expect(fits.status).toBe(201);
      expect(fits.json.address.split("@")[0]).toHaveLength(64);
      for (const tag of ["t".repeat(room + 1), "t".repeat(10_000)]) {
        const error = expectError(await create({ tag }), { status: 400, code: "invalid_request", retryable: false });
        expect(error.details?.errors).toEqual([{ in: "body", path: "/tag", message: expect.stringContaining("at most 64") }]);
      }
    });

    it("creates nothing when refused", async () => {
      await create({ tag: "refused one" });
      const { data } = await server.project.client.GET("/v1/inboxes", { params: { query: { tag_prefix: "refused" } } });
      expect(data?.data).toEqual([]);
    });
  });

  describe("404", () => {
    it("gives domain_not_found for a domain the project does not have", async () => {
      const error = expectError(await create({ tag: "x", domain: "nowhere.example.org" }), { status: 404, code: "domain_not_found", retryable: false });
      expect(error.reason).toContain("nowhere.example.org");
    });
  });

  describeDomainRules(server, (domain) => create({ tag: "x", domain }));

  describe("401 and 403", () => {
    it("needs inboxes:write", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const error = expectError(await create({ tag: "x" }, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "inboxes:write" });
    });
  });
});
