import { type TestServer, eventually, expectError, keyRequest, rawRequest, uniqueTag, useTestServer } from "@mailstop/testkit";
import { DEFAULTS, limitedProject } from "./rate-limits.fixture";

// Rate limits per key and route class (docs/decisions.md "Rate limits"). The suite's server runs
// on the defaults ("" counts as unset, undoing the test servers' high limits); each test gives
// its own project small limits through the admin API, so a burst is a handful of requests.
// Two servers sharing one Redis are in rate-limits.engines.int.test.ts.
// mail: the waiter routes (the wait, the event stream) run beside the api.
const server = useTestServer({ mail: true, env: DEFAULTS, project: false });

type Outcome = Awaited<ReturnType<typeof rawRequest>>;

const listInboxes = (apiKey: string, on: TestServer = server) => keyRequest(on.url, apiKey, "GET", "/v1/inboxes?limit=1");
const createInbox = (apiKey: string) => keyRequest(server.url, apiKey, "POST", "/v1/inboxes", { tag: uniqueTag("rate") });

/** `count` requests sent together, their outcomes ordered by status. */
async function burst(count: number, send: () => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes = await Promise.all(Array.from({ length: count }, send));
  return outcomes.sort((a, b) => a.status - b.status);
}

const rateHeaders = (outcome: Outcome) => ({
  limit: outcome.headers.get("ratelimit-limit"),
  remaining: outcome.headers.get("ratelimit-remaining"),
  reset: outcome.headers.get("ratelimit-reset"),
  policy: outcome.headers.get("ratelimit-policy"),
});

/** Spends the key's read bucket of `bucket` tokens and returns the refusal that follows. */
async function spendReads(apiKey: string, bucket: number, on: TestServer = server): Promise<Outcome> {
  const outcomes = await burst(bucket + 1, () => listInboxes(apiKey, on));
  expect(outcomes.map((o) => o.status)).toEqual([...Array<number>(bucket).fill(200), 429]);
  return outcomes[bucket]!;
}

describe("rate limits", () => {
  describe("200", () => {
    it("answers within the bucket with RateLimit-Limit (twice the rate), -Remaining counting down, and -Reset", async () => {
      const project = await limitedProject(server, { rate_limit_read: 3 });
      const outcomes = await burst(6, () => listInboxes(project.apiKey));
      expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(outcomes.map((o) => Number(rateHeaders(o).remaining)).sort()).toEqual([0, 1, 2, 3, 4, 5]);
      for (const outcome of outcomes) {
        expect(rateHeaders(outcome)).toEqual({ limit: "6", remaining: expect.any(String), reset: expect.stringMatching(/^[0-2]$/), policy: "6;w=2" });
      }
    });

    it("applies the defaults: 50 reads and 10 writes per second per key, in bursts of 100 and 20", async () => {
      const project = await server.bootstrap();
      expect(rateHeaders(await listInboxes(project.apiKey))).toMatchObject({ limit: "100", remaining: "99", policy: "100;w=2" });
      // Invalid bodies: counted before validation, answered 400 without touching the database,
      // so the 21 land in the bucket's first 2 s window even on a loaded machine (creating 21
      // inboxes there could outlast it, and a second window refills the bucket).
      const writes = await burst(21, () => keyRequest(server.url, project.apiKey, "POST", "/v1/inboxes", { tag: "" }));
      expect(writes.map((o) => o.status)).toEqual([...Array<number>(20).fill(400), 429]);
      expect(expectError(writes[20]!, { status: 429, code: "rate_limited", retryable: true }).details).toEqual({ rate_class: "write", limit: 10 });
      expect(rateHeaders(writes[20]!)).toMatchObject({ limit: "20", remaining: "0" });
    });

    it("never limits the blocking wait, even for a key past both its limits", async () => {
      const project = await limitedProject(server, { rate_limit_read: 1, rate_limit_write: 1 });
      const { json: inbox } = await createInbox(project.apiKey);
      await spendReads(project.apiKey, 2);
      const waits = await burst(6, () => keyRequest(server.url, project.apiKey, "POST", "/v1/messages/wait", { inbox: inbox.id, timeout_ms: 10 }));
      for (const wait of waits) {
        expect([wait.status, wait.json.status]).toEqual([200, "timeout"]);
        expect(wait.headers.get("ratelimit-limit")).toBeNull();
      }
    });

    it("gives another key of the same project a bucket of its own", async () => {
      const project = await limitedProject(server, { rate_limit_read: 2 });
      await spendReads(project.apiKey, 4);
      const { data: other } = await server.admin.POST("/admin/v1/projects/{id}/api-keys", { params: { path: { id: project.projectId } }, body: {} });
      const outcome = await listInboxes(other!.key);
      expect(outcome.status).toBe(200);
      expect(rateHeaders(outcome)).toMatchObject({ limit: "4", remaining: "3" });
    });

    it("takes the project's own limits from the admin API in place of the defaults, and the defaults back when they are removed", async () => {
      const project = await limitedProject(server, { rate_limit_read: 7, rate_limit_write: 80 });
      expect(rateHeaders(await listInboxes(project.apiKey)).limit).toBe("14");
      expect(rateHeaders(await createInbox(project.apiKey)).limit).toBe("160");
      await server.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: project.projectId } }, body: { limits: { rate_limit_read: null, rate_limit_write: null } } });
      expect(rateHeaders(await listInboxes(project.apiKey)).limit).toBe("100");
      expect(rateHeaders(await createInbox(project.apiKey)).limit).toBe("20");
    });

    it("fills the bucket again once its window has passed", async () => {
      const project = await limitedProject(server, { rate_limit_read: 1 });
      await spendReads(project.apiKey, 2);
      const refilled = await eventually(
        async () => {
          const outcome = await listInboxes(project.apiKey);
          return outcome.status === 200 ? outcome : null;
        },
        { what: "a read admitted after the window", timeoutMs: 10_000 },
      );
      expect(rateHeaders(refilled)).toMatchObject({ limit: "2", remaining: "1" });
    });
  });

  describe("429", () => {
    it("refuses a key over its read rate with rate_limited, retry_after_seconds, Retry-After and the RateLimit headers, pointing to the wait", async () => {
      const project = await limitedProject(server, { rate_limit_read: 3 });
      const refused = await spendReads(project.apiKey, 6);
      const error = expectError(refused, { status: 429, code: "rate_limited", retryable: true });
      expect(error.retry_after_seconds).toEqual(expect.any(Number));
      expect([1, 2]).toContain(error.retry_after_seconds);
      expect(refused.headers.get("retry-after")).toBe(String(error.retry_after_seconds));
      expect(error.reason).toContain("POST /v1/messages/wait");
      expect(error.details).toEqual({ rate_class: "read", limit: 3 });
      expect(rateHeaders(refused)).toEqual({ limit: "6", remaining: "0", reset: String(error.retry_after_seconds), policy: "6;w=2" });
      expect(refused.headers.get("x-request-id")).toMatch(/^req_/);
    });

    it("limits writes apart from reads: a key out of reads still writes, until its writes run out", async () => {
      const project = await limitedProject(server, { rate_limit_read: 2, rate_limit_write: 1 });
      await spendReads(project.apiKey, 4);
      const writes = await burst(3, () => createInbox(project.apiKey));
      expect(writes.map((o) => o.status)).toEqual([201, 201, 429]);
      expect(rateHeaders(writes[0]!).limit).toBe("2");
      expect(expectError(writes[2]!, { status: 429, code: "rate_limited", retryable: true }).details).toEqual({ rate_class: "write", limit: 1 });
    });

    // In the fleet world the stream is the waiter's and the reads the api's: two processes, one bucket.
    it("counts the event stream as a read: a key out of reads cannot open one", async () => {
      const project = await limitedProject(server, { rate_limit_read: 1, rate_limit_write: 5 });
      const { json: inbox } = await createInbox(project.apiKey);
      await spendReads(project.apiKey, 2);
      // A stream that opened would never end: read the status, then let go.
      const controller = new AbortController();
      try {
        const response = await fetch(`${server.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${project.apiKey}` }, signal: controller.signal });
        expect(response.status).toBe(429);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
      } finally {
        controller.abort();
      }
    });

    it("answers every failure of a limited class with the RateLimit headers too", async () => {
      const project = await limitedProject(server, { rate_limit_read: 3 });
      const missing = await keyRequest(server.url, project.apiKey, "GET", "/v1/inboxes/ibx_00000000000000000000000000");
      expectError(missing, { status: 404, code: "inbox_not_found", retryable: false });
      expect(rateHeaders(missing)).toMatchObject({ limit: "6", remaining: "5" });
    });
  });
});
