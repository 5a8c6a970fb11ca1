import { newId, sha256 } from "@mailstop/core";
import { TestEventStream, eventually, expectError, rawRequest, useTestServer } from "@mailstop/testkit";

const SIM_DELAY_MS = 1500;
const HEARTBEAT_S = 1;
const open: TestEventStream[] = [];

const server = useTestServer({ mail: true, env: { MAILSTOP_SIM_DELAY_MS: String(SIM_DELAY_MS), MAILSTOP_HEARTBEAT_S: String(HEARTBEAT_S) } });
afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

const eventsPath = (inbox: string, query = "") => `/stream/v1/inboxes/${encodeURIComponent(inbox)}/events${query}`;

/** A real EventSource on `path`, closed after the test. */
function stream(path: string, options: { key?: string | null; headers?: Record<string, string> } = {}): TestEventStream {
  const key = options.key === undefined ? server.apiKey : options.key;
  const headers = { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...options.headers };
  const opened = new TestEventStream(`${server.url}${path}`, { headers });
  open.push(opened);
  return opened;
}

const send = (to: string, subject: string, text = "hello") => server.send({ from: "Acme <noreply@acme.example>", to, subject, text });

const subjects = (s: TestEventStream) => s.framesOf("message").map((frame) => frame.data.subject);

const mintToken = (inbox: string, apiKey = server.apiKey) => server.request("POST", `/v1/inboxes/${encodeURIComponent(inbox)}/stream-token`, { apiKey });

describe("GET /stream/v1/inboxes/{id}/events", () => {
  it("opens with an open frame, then sends one message frame per arrival with a cursor, the envelope and extractions, no body", async () => {
    const inbox = await server.createInbox();
    const other = await server.createInbox();
    const s = stream(eventsPath(inbox.id));
    expect((await s.next("open")).data).toEqual({ inbox: inbox.id, resumed_from: null });

    await send(other.address, "for the other inbox");
    const subject = `Welcome ${newId("message")}`;
    await server.send({
      from: "Acme <noreply@acme.example>",
      to: `Pat <${inbox.address}>`,
      subject,
      text: "Your code is 551903. Verify: https://acme.example/verify?t=abc",
      headers: { "X-Service-Correlation-ID": "corr-1" },
    });
    const frame = await s.next("message");
    expect(frame.id).toEqual(expect.any(String));
    expect(frame.id).not.toBe("");
    expect(frame.data).toEqual({
      id: expect.stringMatching(/^msg_/),
      inbox_id: inbox.id,
      received_at: expect.any(String),
      subject,
      from: { address: "noreply@acme.example", name: "Acme" },
      to: [{ address: inbox.address, name: "Pat" }],
      correlation_id: "corr-1",
      codes: ["551903"],
      links: [expect.objectContaining({ url: "https://acme.example/verify?t=abc", kind: "verify" })],
    });
    // The frame's message is readable at once, and the other inbox's mail never showed up.
    const { data: message } = await server.project.client.GET("/v1/messages/{id}", { params: { path: { id: frame.data.id } } });
    expect(message?.subject).toBe(subject);
    expect(subjects(s)).toEqual([subject]);
  });

  it("takes the inbox address in the path", async () => {
    const inbox = await server.createInbox();
    const s = stream(eventsPath(inbox.address));
    expect((await s.next("open")).data.inbox).toBe(inbox.id);
    await send(inbox.address, "by address");
    expect((await s.next("message")).data.subject).toBe("by address");
  });

  it("starts a fresh stream with new arrivals only", async () => {
    const inbox = await server.createInbox();
    await send(inbox.address, "stored before");
    await eventually(() => server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).executeTakeFirst());
    const s = stream(eventsPath(inbox.id));
    await s.next("open");
    await send(inbox.address, "sent after");
    await s.next("message");
    expect(subjects(s)).toEqual(["sent after"]);
  });

  it("sends `: ping` heartbeats every MAILSTOP_HEARTBEAT_S", async () => {
    const inbox = await server.createInbox();
    const controller = new AbortController();
    const response = await fetch(`${server.url}${eventsPath(inbox.id)}`, { headers: { authorization: `Bearer ${server.apiKey}` }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toContain("no-cache");
    const reader = response.body!.getReader();
    let text = "";
    const deadline = Date.now() + (HEARTBEAT_S * 1000) * 2.5;
    while (Date.now() < deadline && (text.match(/^: ping$/gm) ?? []).length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString("utf8");
    }
    controller.abort();
    expect(text).toMatch(/^retry: \d+$/m);
    expect(text).toMatch(/^event: open$/m);
    expect((text.match(/^: ping$/gm) ?? []).length).toBeGreaterThanOrEqual(2);
  });

  it("shows a sim.delay message only once it is visible", async () => {
    const inbox = await server.createInbox({ tag: `sim.delay.${newId("message").slice(-8)}` });
    const s = stream(eventsPath(inbox.id));
    await s.next("open");
    const sent = Date.now();
    await send(inbox.address, "delayed");
    await s.next("message");
    expect(Date.now() - sent).toBeGreaterThanOrEqual(SIM_DELAY_MS - 100);
  });

  describe("resuming", () => {
    async function streamedThree() {
      const inbox = await server.createInbox();
      const first = stream(eventsPath(inbox.id));
      await first.next("open");
      for (const subject of ["one", "two", "three"]) await send(inbox.address, subject);
      await first.until((frames) => frames.filter((f) => f.event === "message").length === 3);
      first.close();
      return { inbox, cursors: first.framesOf("message").map((frame) => frame.id), ids: first.framesOf("message").map((frame) => frame.data.id) };
    }

    it("after last_event_id, exactly: what came after it, stored while away, then live arrivals", async () => {
      const { inbox, cursors } = await streamedThree();
      await send(inbox.address, "four (while away)");
      await eventually(() => server.db.selectFrom("messages").select("id").where("inbox_id", "=", inbox.id).where("subject", "like", "four%").executeTakeFirst());
      const resumed = stream(eventsPath(inbox.id, `?last_event_id=${encodeURIComponent(cursors[1]!)}`));
      expect((await resumed.next("open")).data).toEqual({ inbox: inbox.id, resumed_from: cursors[1] });
      await resumed.until((frames) => frames.filter((f) => f.event === "message").length === 2);
      await send(inbox.address, "five (live)");
      await resumed.until((frames) => frames.filter((f) => f.event === "message").length === 3);
      expect(subjects(resumed)).toEqual(["three", "four (while away)", "five (live)"]);
      expect(resumed.framesOf("message")[0]!.id).toBe(cursors[2]);
    });

    it("after the Last-Event-ID header, which wins over the query", async () => {
      const { inbox, cursors } = await streamedThree();
      const resumed = stream(eventsPath(inbox.id, `?last_event_id=${encodeURIComponent(cursors[0]!)}`), { headers: { "last-event-id": cursors[1]! } });
      expect((await resumed.next("open")).data.resumed_from).toBe(cursors[1]);
      // The message may arrive in the same chunk as the open frame: wait for it, not for a next one.
      await resumed.until((frames) => frames.some((frame) => frame.event === "message"));
      // Frames come in order: once a marker sent now is heard, anything repeated would have come before it.
      await send(inbox.address, "marker");
      await resumed.until((frames) => frames.some((frame) => frame.data?.subject === "marker"));
      expect(subjects(resumed)).toEqual(["three", "marker"]);
    });

    it("from a malformed cursor starts a fresh stream instead of failing", async () => {
      const { inbox } = await streamedThree();
      const fresh = stream(eventsPath(inbox.id, "?last_event_id=not-a-cursor"));
      expect((await fresh.next("open")).data).toEqual({ inbox: inbox.id, resumed_from: null });
      await send(inbox.address, "after the fresh start");
      await fresh.next("message");
      expect(subjects(fresh)).toEqual(["after the fresh start"]);
    });

    it("leaves out a message erased while away", async () => {
      const { inbox, cursors, ids } = await streamedThree();
      const { response } = await server.project.client.DELETE("/v1/messages/{id}", { params: { path: { id: ids[2]! } } });
      expect(response.status).toBe(200);
      await send(inbox.address, "four");
      const resumed = stream(eventsPath(inbox.id, `?last_event_id=${encodeURIComponent(cursors[0]!)}`));
      await resumed.until((frames) => frames.filter((f) => f.event === "message").length === 2);
      await send(inbox.address, "marker");
      await resumed.until((frames) => frames.some((frame) => frame.data?.subject === "marker"));
      expect(subjects(resumed)).toEqual(["two", "four", "marker"]);
    });
  });

  describe("authentication", () => {
    it("without a credential is unauthenticated", async () => {
      const inbox = await server.createInbox();
      expectError(await rawRequest(server.url, "GET", eventsPath(inbox.id)), { status: 401, code: "unauthenticated", retryable: false });
      // The same for an inbox that does not exist: nothing is revealed.
      expectError(await rawRequest(server.url, "GET", eventsPath("ibx_01jc0000000000000000000000")), { status: 401, code: "unauthenticated", retryable: false });
    });

    it("refuses an unknown key, a key without messages:read, and an unknown inbox, each with its code", async () => {
      const inbox = await server.createInbox();
      const get = (path: string, apiKey: string) => server.request("GET", path, { apiKey });
      expectError(await get(eventsPath(inbox.id), "is_test_unknownunknownunknownunknown"), { status: 401, code: "invalid_api_key", retryable: false });
      const { data: narrow } = await server.admin.POST("/admin/v1/projects/{id}/api-keys", {
        params: { path: { id: server.project.projectId } },
        body: { scopes: ["inboxes:read"] },
      });
      const error = expectError(await get(eventsPath(inbox.id), narrow!.key), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "messages:read" });
      expectError(await get(eventsPath("ibx_01jc0000000000000000000000"), server.apiKey), { status: 404, code: "inbox_not_found", retryable: false });
    });

    it("gives forbidden with project_region to a key of another region", async () => {
      const eu = await server.bootstrap({ region: "eu" });
      const outcome = await server.request("GET", eventsPath("ibx_01jc0000000000000000000000"), { apiKey: eu.apiKey });
      expect(expectError(outcome, { status: 403, code: "forbidden", retryable: false }).details).toEqual({ project_region: "eu" });
    });

    it("gives abuse_suspended to a suspended organisation, by key and by token", async () => {
      const other = await server.bootstrap();
      const inbox = await server.createInbox({}, other);
      const { json: minted } = await mintToken(inbox.id, other.apiKey);
      await server.admin.PATCH("/admin/v1/organisations/{id}", { params: { path: { id: other.organisationId } }, body: { suspended: true } });
      const byKey = await server.request("GET", eventsPath(inbox.id), { apiKey: other.apiKey });
      expectError(byKey, { status: 403, code: "abuse_suspended", retryable: false });
      expectError(await rawRequest(server.url, "GET", new URL(minted.stream_url).pathname + new URL(minted.stream_url).search), {
        status: 403,
        code: "abuse_suspended",
        retryable: false,
      });
    });
  });
});

describe("POST /v1/inboxes/{id}/stream-token", () => {
  it("returns 201 with the token, its expiry and a stream URL that a plain EventSource opens (no header)", async () => {
    const inbox = await server.createInbox();
    const before = Date.now();
    const { status, json } = await mintToken(inbox.address);
    expect(status).toBe(201);
    expect(json).toEqual({ token: expect.stringMatching(/^is_stream_[A-Za-z0-9_-]{43}$/), expires_at: expect.any(String), stream_url: expect.any(String) });
    const ttlMs = Date.parse(json.expires_at) - before;
    expect(ttlMs).toBeGreaterThan(299_000);
    expect(ttlMs).toBeLessThanOrEqual(301_000);
    expect(json.stream_url).toBe(`${server.url}/stream/v1/inboxes/${inbox.id}/events?token=${json.token}`);

    const s = stream(new URL(json.stream_url).pathname + new URL(json.stream_url).search, { key: null });
    await s.next("open");
    await send(inbox.address, "via token");
    expect((await s.next("message")).data.subject).toBe("via token");
  });

  it("stores only the token's SHA-256 digest", async () => {
    const inbox = await server.createInbox();
    const { json } = await mintToken(inbox.id);
    const rows = await server.db.selectFrom("stream_tokens").selectAll().where("inbox_id", "=", inbox.id).execute();
    expect(rows).toHaveLength(1);
    expect(Buffer.compare(rows[0]!.token_hash, sha256(json.token))).toBe(0);
    expect(JSON.stringify(rows)).not.toContain(json.token.slice("is_stream_".length));
  });

  it("is refused for an unknown inbox and without messages:read", async () => {
    expectError(await mintToken("ibx_01jc0000000000000000000000"), { status: 404, code: "inbox_not_found", retryable: false });
    const inbox = await server.createInbox();
    const { data: narrow } = await server.admin.POST("/admin/v1/projects/{id}/api-keys", {
      params: { path: { id: server.project.projectId } },
      body: { scopes: ["inboxes:read"] },
    });
    expectError(await mintToken(inbox.id, narrow!.key), { status: 403, code: "insufficient_scope", retryable: false });
  });

  describe("a token on the stream", () => {
    const get = (path: string, headers: Record<string, string> = {}) => rawRequest(server.url, "GET", path, { headers });

    it("for another inbox, by id or address, is unauthenticated", async () => {
      const mine = await server.createInbox();
      const other = await server.createInbox();
      const { json } = await mintToken(mine.id);
      for (const reference of [other.id, other.address, "ibx_01jc0000000000000000000000"]) {
        expectError(await get(eventsPath(reference, `?token=${json.token}`)), { status: 401, code: "unauthenticated", retryable: false });
      }
      // The token's own inbox by address opens.
      const s = stream(eventsPath(mine.address, `?token=${json.token}`), { key: null });
      await s.next("open");
    });

    it("expired, unknown, or minted by a key since revoked, is unauthenticated", async () => {
      const inbox = await server.createInbox();
      const { json: expired } = await mintToken(inbox.id);
      await server.db.updateTable("stream_tokens").set({ expires_at: new Date(Date.now() - 1000) }).where("token_hash", "=", sha256(expired.token)).execute();
      expectError(await get(eventsPath(inbox.id, `?token=${expired.token}`)), { status: 401, code: "unauthenticated", retryable: false });
      expectError(await get(eventsPath(inbox.id, "?token=is_stream_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")), { status: 401, code: "unauthenticated", retryable: false });
      expectError(await get(eventsPath(inbox.id, "?token=garbage")), { status: 401, code: "unauthenticated", retryable: false });

      const { data: key } = await server.admin.POST("/admin/v1/projects/{id}/api-keys", { params: { path: { id: server.project.projectId } }, body: {} });
      const { json: minted } = await mintToken(inbox.id, key!.key);
      await server.admin.DELETE("/admin/v1/api-keys/{id}", { params: { path: { id: key!.id } } });
      expectError(await get(eventsPath(inbox.id, `?token=${minted.token}`)), { status: 401, code: "unauthenticated", retryable: false });
    });

    it("loses to a Bearer header sent with it: the header is what is checked", async () => {
      const inbox = await server.createInbox();
      const { json } = await mintToken(inbox.id);
      expectError(await get(eventsPath(inbox.id, `?token=${json.token}`), { authorization: "Bearer is_test_unknownunknownunknownunknown" }), {
        status: 401,
        code: "invalid_api_key",
        retryable: false,
      });
      // A valid header opens the stream of any inbox of its project, whatever the token says.
      const other = await server.createInbox();
      const s = stream(eventsPath(other.id, `?token=${json.token}`));
      expect((await s.next("open")).data.inbox).toBe(other.id);
    });
  });
});
