import { newId } from "@mailstop/core";
import { insertDomain } from "@mailstop/db";
import { expectError, uniqueRunId, uniqueDomain, useTestServer } from "@mailstop/testkit";
import { describeDomainRules } from "./inbox-domain-rules.fixture";

const server = useTestServer();

const forRun = (body: unknown, apiKey: string | null = server.apiKey) => server.request("POST", "/v1/inboxes/for-run", { body, apiKey });

const inboxRowsAt = async (address: string) =>
  server.db.selectFrom("inboxes").selectAll().where("address", "=", address).execute();

const BAD_REQUEST = { status: 400, code: "invalid_request", retryable: false } as const;

describe("POST /v1/inboxes/for-run", () => {
  describe("200", () => {
    it("returns the inbox view tagged run.<run_id> at <project_key>.run.<run_id>@mailstop.test", async () => {
      const runId = uniqueRunId("ci.build_7");
      const { data, error, response } = await server.project.client.POST("/v1/inboxes/for-run", { body: { run_id: runId } });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual({
        id: expect.stringMatching(/^ibx_[0-9a-z]{26}$/),
        address: `${server.project.projectKey}.run.${runId}@mailstop.test`,
        tag: `run.${runId}`,
        domain: null,
        labels: { run_id: runId },
        retention_seconds: 86400,
        expires_at: null,
        created_at: expect.any(String),
        last_message_at: null,
        message_count: 0,
      });
      expect(new Date(data!.created_at).toISOString()).toBe(data!.created_at);
    });

    it("maps the same run_id to the same inbox on every call, returned unchanged", async () => {
      const runId = uniqueRunId();
      const first = await forRun({ run_id: runId, retention_seconds: 600, labels: { suite: "a" } });
      const second = await forRun({ run_id: runId, retention_seconds: 900, labels: { suite: "b" } });
      const third = await forRun({ run_id: runId });
      expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
      expect(second.json.id).toBe(first.json.id);
      expect(third.json.id).toBe(first.json.id);
      expect(second.json).toEqual(first.json);
      expect(third.json).toEqual(first.json);
      expect(third.json.retention_seconds).toBe(600);
      expect(third.json.labels).toEqual({ suite: "a", run_id: runId });
    });

    it("is safe under 20 concurrent calls for a new run_id: one id, one row", async () => {
      const runId = uniqueRunId("race");
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => forRun({ run_id: runId })));
      expect(outcomes.map((o) => o.status)).toEqual(Array(20).fill(200));
      const ids = new Set(outcomes.map((o) => o.json.id));
      expect(ids.size).toBe(1);
      const address = `${server.project.projectKey}.run.${runId}@mailstop.test`;
      const rows = await inboxRowsAt(address);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.id).toBe(outcomes[0]!.json.id);
    });

    it("stores the request's labels plus run_id, which wins over a run_id label of the request", async () => {
      const runId = uniqueRunId();
      const { json } = await forRun({ run_id: runId, labels: { suite: "checkout", run_id: "spoofed" } });
      expect(json.labels).toEqual({ suite: "checkout", run_id: runId });
      const [row] = await inboxRowsAt(json.address);
      expect(row!.labels).toEqual({ suite: "checkout", run_id: runId });
    });

    it("accepts retention_seconds at both bounds", async () => {
      expect((await forRun({ run_id: uniqueRunId(), retention_seconds: 60 })).json.retention_seconds).toBe(60);
      expect((await forRun({ run_id: uniqueRunId(), retention_seconds: 2592000 })).json.retention_seconds).toBe(2592000);
    });

    it("creates on a verified domain of the project as run.<run_id>@<domain>", async () => {
      const domain = uniqueDomain("forrun");
      await insertDomain(server.db, { id: newId("domain"), projectId: server.project.projectId, domain, ownershipToken: "t", status: "verified" });
      const runId = uniqueRunId();
      const { status, json } = await forRun({ run_id: runId, domain });
      expect(status).toBe(200);
      expect(json.address).toBe(`run.${runId}@${domain}`);
      expect(json.domain).toBe(domain);
      expect(json.tag).toBe(`run.${runId}`);
    });

    it("keeps tenants apart: another project's same run_id is a different inbox", async () => {
      const other = await server.bootstrap();
      const runId = uniqueRunId("shared");
      const mine = await forRun({ run_id: runId });
      const theirs = await forRun({ run_id: runId }, other.apiKey);
      expect(theirs.status).toBe(200);
      expect(theirs.json.id).not.toBe(mine.json.id);
      expect(theirs.json.address).toBe(`${other.projectKey}.run.${runId}@mailstop.test`);
      expect(mine.json.address).toBe(`${server.project.projectKey}.run.${runId}@mailstop.test`);
      // Each project sees only its own.
      const { data } = await server.project.client.GET("/v1/inboxes", { params: { query: { tag_prefix: `run.${runId}` } } });
      expect(data?.data.map((inbox) => inbox.id)).toEqual([mine.json.id]);
    });
  });

  describe("400", () => {
    it.each([
      ["capitals", "Run-1"],
      ["a space", "run 1"],
      ["an empty segment", "a..b"],
      ["a trailing dot", "run."],
      ["a plus sign", "a+b"],
    ])("refuses a run_id with %s (never lower-cased or slugified)", async (_case, runId) => {
      const error = expectError(await forRun({ run_id: runId }), BAD_REQUEST);
      expect(error.details?.errors[0].path).toBe("/run_id");
      expect(error.details?.errors).toEqual([{ in: "body", path: "/run_id", message: expect.any(String) }]);
      expect(await inboxRowsAt(`${server.project.projectKey}.run.${runId.toLowerCase()}@mailstop.test`)).toEqual([]);
    });

    it("refuses an empty run_id", async () => {
      const error = expectError(await forRun({ run_id: "" }), BAD_REQUEST);
      expect(error.details?.errors[0].path).toBe("/run_id");
    });

    it("refuses a run_id that makes the address's local part longer than SMTP's 64 octets, and creates nothing", async () => {
      // <project key>.run.<run id>
      const runId = "r".repeat(64 - server.project.projectKey.length - "..run".length + 1);
      const error = expectError(await forRun({ run_id: runId }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/run_id", message: expect.stringContaining("at most 64") }]);
      expect(await inboxRowsAt(`${server.project.projectKey}.run.${runId}@mailstop.test`)).toEqual([]);
      expect((await forRun({ run_id: runId.slice(1) })).status).toBe(200);
    });

    it("refuses a missing run_id", async () => {
      const error = expectError(await forRun({}), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/run_id", message: "is required" }]);
    });

    it.each([59, 2592001, 1.5, "600"])("refuses retention_seconds %p", async (retention) => {
      const error = expectError(await forRun({ run_id: uniqueRunId(), retention_seconds: retention }), BAD_REQUEST);
      expect(error.details?.errors[0].path).toBe("/retention_seconds");
    });

    it("refuses labels that are not strings or are too long", async () => {
      expectError(await forRun({ run_id: uniqueRunId(), labels: { n: 1 } }), BAD_REQUEST);
      expectError(await forRun({ run_id: uniqueRunId(), labels: { ["k".repeat(65)]: "v" } }), BAD_REQUEST);
      expectError(await forRun({ run_id: uniqueRunId(), labels: { k: "v".repeat(257) } }), BAD_REQUEST);
    });

    it("refuses properties the document does not declare", async () => {
      const error = expectError(await forRun({ run_id: uniqueRunId(), tag: "x" }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/tag", message: "is not an allowed property" }]);
    });
  });

  describe("404", () => {
    it("gives domain_not_found for a domain the project does not have, and creates nothing", async () => {
      const runId = uniqueRunId();
      const error = expectError(await forRun({ run_id: runId, domain: "nowhere.example.org" }), { status: 404, code: "domain_not_found", retryable: false });
      expect(error.reason).toContain("nowhere.example.org");
      expect(await inboxRowsAt(`run.${runId}@nowhere.example.org`)).toEqual([]);
    });
  });

  describeDomainRules(server, (domain) => forRun({ run_id: uniqueRunId(), domain }));

  describe("401 and 403", () => {
    it("needs inboxes:write, and creates nothing without it", async () => {
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const runId = uniqueRunId();
      const error = expectError(await forRun({ run_id: runId }, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "inboxes:write" });
      expect(await inboxRowsAt(`${reader.projectKey}.run.${runId}@mailstop.test`)).toEqual([]);
    });

    it("gives unauthenticated without an Authorization header", async () => {
      const outcome = await forRun({ run_id: uniqueRunId() }, null);
      expectError(outcome, { status: 401, code: "unauthenticated", retryable: false });
    });
  });
});
