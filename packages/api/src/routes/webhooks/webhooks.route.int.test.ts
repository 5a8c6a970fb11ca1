import { newId } from "@mailstop/core";
import {
  TEST_SECRETS_KEY,
  type TestDns,
  type TestProject,
  type TestServer,
  expectError,
  keyRequest,
  startTestDns,
  startTestServer,
  uniqueDomain,
} from "@mailstop/testkit";
import { SecretBox } from "@mailstop/webhooks";

/** Inside MAILSTOP_WEBHOOK_ALLOW_NETWORKS below: the one loopback address endpoints may use. */
const ALLOWED_URL = "http://127.0.0.2:9/hook";
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const DAY_MS = 24 * 60 * 60 * 1000;

let dns: TestDns;
let server: TestServer;
let project: TestProject;
let other: TestProject;
const box = SecretBox.fromSetting(TEST_SECRETS_KEY);

/** Names the test DNS server answers, each with the addresses it resolves to. */
const names = {
  allowed: uniqueDomain("hook-ok"),
  loopback: uniqueDomain("hook-lo"),
  loopback6: uniqueDomain("hook-lo6"),
  mapped: uniqueDomain("hook-mapped"),
  compatible: uniqueDomain("hook-compat"),
  metadata: uniqueDomain("hook-meta"),
  private: uniqueDomain("hook-10"),
  cgnat: uniqueDomain("hook-cgnat"),
  uniqueLocal: uniqueDomain("hook-ula"),
  mixedV4: uniqueDomain("hook-mix4"),
  mixedFamilies: uniqueDomain("hook-mix6"),
  unknown: uniqueDomain("hook-nx"),
};

beforeAll(async () => {
  dns = await startTestDns();
  dns.set(names.allowed, { a: ["127.0.0.2"] });
  dns.set(names.loopback, { a: ["127.0.0.1"] });
  dns.set(names.loopback6, { aaaa: ["::1"] });
  dns.set(names.mapped, { aaaa: ["::ffff:7f00:1"] });
  dns.set(names.compatible, { aaaa: ["::7f00:1"] });
  dns.set(names.metadata, { a: ["169.254.169.254"] });
  dns.set(names.private, { a: ["10.0.0.1"] });
  dns.set(names.cgnat, { a: ["100.64.0.1"] });
  dns.set(names.uniqueLocal, { aaaa: ["fd00::1"] });
  dns.set(names.mixedV4, { a: ["127.0.0.2", "10.0.0.1"] });
  dns.set(names.mixedFamilies, { a: ["127.0.0.2"], aaaa: ["::1"] });
  server = await startTestServer({
    env: { MAILSTOP_DNS_SERVERS: dns.server, MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.2/32", MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY },
  });
  [project, other] = await Promise.all([server.bootstrap(), server.bootstrap()]);
});
afterAll(async () => {
  await server?.stop();
  await dns?.stop();
});

const call = (method: string, path: string, body?: unknown, apiKey = project.apiKey) => keyRequest(server.url, apiKey, method, path, body);

interface Created {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  secret: string;
}

async function create(body: Record<string, unknown> = {}, owner = project): Promise<Created> {
  const response = await call("POST", "/v1/webhooks", { url: ALLOWED_URL, events: ["message.received"], ...body }, owner.apiKey);
  expect(response.status).toBe(201);
  return response.json;
}

const storedRow = (id: string) => server.db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

const notFound = (outcome: { status: number; json: any }, id: string) =>
  expect(expectError(outcome, { status: 404, code: "webhook_not_found", retryable: false }).details).toEqual({ webhook_id: id });

describe("POST /v1/webhooks", () => {
  it("creates the endpoint: 201 with the view and a whsec_ secret, stored only sealed, never shown or logged again", async () => {
    const { status, json } = await call("POST", "/v1/webhooks", { url: ALLOWED_URL, events: ["message.received", "domain.verified"], description: "ci receiver" });
    expect(status).toBe(201);
    expect(json).toEqual({
      id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      url: ALLOWED_URL,
      events: ["message.received", "domain.verified"],
      description: "ci receiver",
      enabled: true,
      disabled_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(SECRET),
    });
    const { secret, ...view } = json;

    const row = await storedRow(json.id);
    expect(row.secret_sealed).not.toContain(secret.slice("whsec_".length));
    expect(box.open(row.secret_sealed)).toBe(secret);

    const got = await call("GET", `/v1/webhooks/${json.id}`);
    expect(got.json).toEqual(view);
    const listed = await call("GET", "/v1/webhooks?limit=100");
    expect(listed.json.data).toContainEqual(view);
    const patched = await call("PATCH", `/v1/webhooks/${json.id}`, { description: "renamed" });
    expect(patched.json).not.toHaveProperty("secret");
    for (const response of [got, listed, patched]) expect(response.text).not.toContain(secret.slice("whsec_".length));
    expect(server.logs()).not.toContain(secret.slice("whsec_".length));
  });

  it("stores a missing description as null, and accepts a name that resolves only to an allowed address", async () => {
    const url = `http://${names.allowed}:9/hook`;
    expect(await create({ url })).toMatchObject({ url, description: null });
  });

  it.each([
    ["no events", []],
    ["an event twice", ["message.received", "message.received"]],
    ["webhook.test (sent by the test route only)", ["webhook.test"]],
    ["an unknown event", ["message.deleted"]],
  ])("refuses %s with 400 invalid_request at /events", async (_what, events) => {
    const error = expectError(await call("POST", "/v1/webhooks", { url: ALLOWED_URL, events }), { status: 400, code: "invalid_request", retryable: false });
    expect(error.details?.errors).toEqual([expect.objectContaining({ path: expect.stringMatching(/^\/events/) })]);
  });

  it("refuses a URL that is not one with 400 invalid_request at /url", async () => {
    const error = expectError(await call("POST", "/v1/webhooks", { url: "not a url", events: ["message.received"] }), { status: 400, code: "invalid_request", retryable: false });
    expect(error.details?.errors).toEqual([{ in: "body", path: "/url", message: "is not a URL" }]);
  });

  it("needs webhooks:write: a read-only key gets 403 insufficient_scope, and its reads work", async () => {
    const reader = await server.bootstrap({ scopes: ["webhooks:read"] });
    const refused = expectError(await call("POST", "/v1/webhooks", { url: ALLOWED_URL, events: ["message.received"] }, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
    expect(refused.details).toEqual({ required_scope: "webhooks:write" });
    expect((await call("GET", "/v1/webhooks", undefined, reader.apiKey)).json).toEqual({ data: [], limit: 50, next_cursor: null });
    const unknown = newId("webhook");
    notFound(await call("GET", `/v1/webhooks/${unknown}`, undefined, reader.apiKey), unknown);
    notFound(await call("GET", `/v1/webhooks/${unknown}/attempts`, undefined, reader.apiKey), unknown);
    for (const [method, path] of [["PATCH", `/v1/webhooks/${unknown}`], ["DELETE", `/v1/webhooks/${unknown}`], ["POST", `/v1/webhooks/${unknown}/rotate-secret`], ["POST", `/v1/webhooks/${unknown}/test`]] as const) {
      const body = method === "PATCH" ? { enabled: false } : undefined;
      expect(expectError(await call(method, path, body, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false }).details).toEqual({ required_scope: "webhooks:write" });
    }
    const outsider = await server.bootstrap({ scopes: ["domains:read"] });
    expect(expectError(await call("GET", "/v1/webhooks", undefined, outsider.apiKey), { status: 403, code: "insufficient_scope", retryable: false }).details).toEqual({ required_scope: "webhooks:read" });
  });
});

describe("the target guard, at create and at update", () => {
  let guarded: TestProject;
  let existing: Created;
  beforeAll(async () => {
    guarded = await server.bootstrap();
    existing = await create({}, guarded);
  });

  /** Neither call changed anything: the project still has its one endpoint, as it was. */
  async function expectUnchanged() {
    const listed = await call("GET", "/v1/webhooks", undefined, guarded.apiKey);
    const { secret: _secret, ...view } = existing;
    expect(listed.json.data).toEqual([view]);
  }

  /** Refused alike at create and at update, changing nothing; returns the public reason. */
  async function expectRefused(url: string, reason: "blocked_address" | "unsupported_scheme"): Promise<string> {
    const created = await call("POST", "/v1/webhooks", { url, events: ["message.received"] }, guarded.apiKey);
    const patched = await call("PATCH", `/v1/webhooks/${existing.id}`, { url, description: "must not stick" }, guarded.apiKey);
    const errors = [created, patched].map((outcome) => expectError(outcome, { status: 400, code: "invalid_request", retryable: false }));
    for (const error of errors) {
      expect(error.details).toEqual({ reason, errors: [{ in: "body", path: "/url", message: expect.any(String) }] });
      expect(error.reason).toContain(error.details!.errors[0].message);
    }
    await expectUnchanged();
    return errors[0]!.reason;
  }

  it.each([
    "http://127.0.0.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://169.254.169.254/",
    "http://10.0.0.1/",
    "http://100.64.0.1/",
    "http://[fd00::1]/",
    // IPv4-compatible (127.0.0.1 to a stack that honours the form) and site-local: refused whatever the allow list.
    "http://[::7f00:1]:9/",
    "http://[::127.0.0.2]:9/hook",
    "http://[fec0::1]/",
  ])("refuses the address %s: 400 blocked_address, nothing created or changed", async (url) => {
    await expectRefused(url, "blocked_address");
  });

  it.each([
    ["127.0.0.1", names.loopback],
    ["::1", names.loopback6],
    ["::ffff:127.0.0.1", names.mapped],
    ["::7f00:1 (IPv4-compatible)", names.compatible],
    ["169.254.169.254", names.metadata],
    ["10.0.0.1", names.private],
    ["100.64.0.1", names.cgnat],
    ["fd00::1", names.uniqueLocal],
    ["an allowed and a refused IPv4 address", names.mixedV4],
    ["an allowed IPv4 and a refused IPv6 address", names.mixedFamilies],
  ])("refuses a name resolving to %s: 400 blocked_address naming the address, nothing created or changed", async (_what, name) => {
    expect(await expectRefused(`http://${name}/hook`, "blocked_address")).toContain(`${name} resolves to`);
  });

  it("refuses a name with no address as blocked_address, saying so", async () => {
    expect(await expectRefused(`http://${names.unknown}/hook`, "blocked_address")).toContain(`${names.unknown} has no address`);
  });

  it.each(["ftp://127.0.0.2/hook", "file:///etc/passwd"])("refuses the scheme of %s: 400 unsupported_scheme", async (url) => {
    await expectRefused(url, "unsupported_scheme");
  });

  it("checks a PATCH's url even when unchanged: the name may resolve elsewhere since", async () => {
    const name = uniqueDomain("hook-moved");
    dns.set(name, { a: ["127.0.0.2"] });
    const webhook = await create({ url: `http://${name}/hook` });
    dns.set(name, { a: ["10.0.0.1"] });
    const error = expectError(await call("PATCH", `/v1/webhooks/${webhook.id}`, { url: webhook.url, enabled: false }), { status: 400, code: "invalid_request", retryable: false });
    expect(error.details?.reason).toBe("blocked_address");
    expect((await call("GET", `/v1/webhooks/${webhook.id}`)).json.enabled).toBe(true);
  });

  it("lets an address inside MAILSTOP_WEBHOOK_ALLOW_NETWORKS through, at update too", async () => {
    const url = `http://${names.allowed}:8080/other`;
    const patched = await call("PATCH", `/v1/webhooks/${existing.id}`, { url }, guarded.apiKey);
    expect(patched.json.url).toBe(url);
    const restored = await call("PATCH", `/v1/webhooks/${existing.id}`, { url: ALLOWED_URL }, guarded.apiKey);
    existing = { ...restored.json, secret: existing.secret };
    await expectUnchanged();
  });
});

describe("GET /v1/webhooks and GET /v1/webhooks/{id}", () => {
  it("lists the project's endpoints newest first, paged, and never another project's", async () => {
    const owner = await server.bootstrap();
    const made: Created[] = [];
    for (const description of ["one", "two", "three"]) made.push(await create({ description }, owner));
    await create({ description: "foreign" }, other);
    const first = await call("GET", "/v1/webhooks?limit=2", undefined, owner.apiKey);
    expect(first.json.data.map((w: Created) => w.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(first.json.limit).toBe(2);
    const second = await call("GET", `/v1/webhooks?limit=2&cursor=${first.json.next_cursor}`, undefined, owner.apiKey);
    expect(second.json).toEqual({ data: [expect.objectContaining({ id: made[0]!.id, description: "one" })], limit: 2, next_cursor: null });
  });

  it("refuses a forged cursor with 400 invalid_request", async () => {
    const cursor = Buffer.from(JSON.stringify({ v: 1, before: "dom_00000000000000000000000000" })).toString("base64url");
    expectError(await call("GET", `/v1/webhooks?cursor=${cursor}`), { status: 400, code: "invalid_request", retryable: false });
  });

  it("an unknown or malformed id is 404 webhook_not_found", async () => {
    for (const id of [newId("webhook"), "not-an-id"]) notFound(await call("GET", `/v1/webhooks/${id}`), id);
  });
});

describe("PATCH /v1/webhooks/{id}", () => {
  it("changes each field on its own, leaving the others", async () => {
    const webhook = await create({ description: "before" });
    const patch = async (body: Record<string, unknown>) => {
      const response = await call("PATCH", `/v1/webhooks/${webhook.id}`, body);
      expect(response.status).toBe(200);
      expect((await call("GET", `/v1/webhooks/${webhook.id}`)).json).toEqual(response.json);
      return response.json as Created;
    };
    const url = `http://${names.allowed}/moved`;
    expect(await patch({ url })).toMatchObject({ url, events: ["message.received"], description: "before", enabled: true });
    expect(await patch({ events: ["message.captured", "message.complaint"] })).toMatchObject({ url, events: ["message.captured", "message.complaint"], description: "before" });
    expect(await patch({ description: "after" })).toMatchObject({ url, description: "after", enabled: true });
    expect(await patch({ description: null })).toMatchObject({ description: null });
    const disabled = await patch({ enabled: false });
    expect(disabled).toMatchObject({ url, events: ["message.captured", "message.complaint"], enabled: false, disabled_reason: null });
    expect(new Date(disabled.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(webhook.updated_at).getTime());
    expect(disabled.created_at).toBe(webhook.created_at);
    expect(box.open((await storedRow(webhook.id)).secret_sealed)).toBe(webhook.secret);
  });

  it("enabling an endpoint mailstop disabled as failing clears disabled_reason", async () => {
    const webhook = await create();
    await server.db.updateTable("webhooks").set({ enabled: false, disabled_reason: "failing" }).where("id", "=", webhook.id).execute();
    expect((await call("GET", `/v1/webhooks/${webhook.id}`)).json).toMatchObject({ enabled: false, disabled_reason: "failing" });
    const { json } = await call("PATCH", `/v1/webhooks/${webhook.id}`, { enabled: true });
    expect(json).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it.each([
    ["an empty patch", {}],
    ["an unknown field", { secret: "whsec_mine" }],
    ["empty events", { events: [] }],
  ])("refuses %s with 400 invalid_request", async (_what, body) => {
    const webhook = await create();
    expectError(await call("PATCH", `/v1/webhooks/${webhook.id}`, body), { status: 400, code: "invalid_request", retryable: false });
  });
});

describe("DELETE /v1/webhooks/{id}", () => {
  it("deletes the endpoint and its queued deliveries: then it is 404 webhook_not_found, and so is a second delete", async () => {
    const webhook = await create();
    expect((await call("POST", `/v1/webhooks/${webhook.id}/test`)).status).toBe(202);
    expect(await call("DELETE", `/v1/webhooks/${webhook.id}`)).toMatchObject({ status: 200, json: { id: webhook.id, deleted: true } });
    expect(await server.db.selectFrom("webhook_deliveries").select("event_id").where("webhook_id", "=", webhook.id).execute()).toEqual([]);
    notFound(await call("GET", `/v1/webhooks/${webhook.id}`), webhook.id);
    notFound(await call("DELETE", `/v1/webhooks/${webhook.id}`), webhook.id);
  });
});

describe("POST /v1/webhooks/{id}/rotate-secret", () => {
  it("returns a new secret; the previous one stays stored, sealed, signing for 24 h more", async () => {
    const webhook = await create();
    const before = Date.now();
    const { status, json } = await call("POST", `/v1/webhooks/${webhook.id}/rotate-secret`);
    const after = Date.now();
    expect(status).toBe(200);
    const { secret: _first, ...view } = webhook;
    expect(json).toEqual({ ...view, updated_at: expect.any(String), secret: expect.stringMatching(SECRET) });
    expect(json.secret).not.toBe(webhook.secret);

    const row = await storedRow(webhook.id);
    expect(box.open(row.secret_sealed)).toBe(json.secret);
    expect(box.open(row.previous_secret_sealed!)).toBe(webhook.secret);
    expect(row.previous_secret_until!.getTime()).toBeGreaterThanOrEqual(before + DAY_MS - 5_000);
    expect(row.previous_secret_until!.getTime()).toBeLessThanOrEqual(after + DAY_MS + 5_000);
    expect((await call("GET", `/v1/webhooks/${webhook.id}`)).json).not.toHaveProperty("secret");
  });

  it("keeps one previous secret: rotating again within 24 h retires the first", async () => {
    const webhook = await create();
    const second = (await call("POST", `/v1/webhooks/${webhook.id}/rotate-secret`)).json.secret;
    const third = (await call("POST", `/v1/webhooks/${webhook.id}/rotate-secret`)).json.secret;
    const row = await storedRow(webhook.id);
    expect([box.open(row.secret_sealed), box.open(row.previous_secret_sealed!)]).toEqual([third, second]);
  });
});

describe("POST /v1/webhooks/{id}/test", () => {
  const deliveriesOf = (eventId: string) => server.db.selectFrom("webhook_deliveries").selectAll().where("event_id", "=", eventId).execute();

  it("queues a webhook.test event for this endpoint alone, subscribed or not: 202 with its whe_ id", async () => {
    const webhook = await create({ events: ["message.received"] });
    await create({ events: ["message.received"] });
    const before = Date.now();
    const { status, json } = await call("POST", `/v1/webhooks/${webhook.id}/test`);
    expect(status).toBe(202);
    expect(json).toEqual({ event_id: expect.stringMatching(/^whe_[0-9a-z]{26}$/) });

    const rows = await deliveriesOf(json.event_id);
    expect(rows).toEqual([expect.objectContaining({ event_id: json.event_id, webhook_id: webhook.id, project_id: project.projectId, event_type: "webhook.test" })]);
    const body = JSON.parse(rows[0]!.body!);
    expect(body).toEqual({ type: "webhook.test", timestamp: expect.any(String), data: { webhook_id: webhook.id, url: ALLOWED_URL } });
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(new Date(body.timestamp).getTime()).toBeGreaterThanOrEqual(before - 5_000);
  });

  it("queues it for a disabled endpoint too: a user checks a fixed receiver before enabling it", async () => {
    const webhook = await create();
    await call("PATCH", `/v1/webhooks/${webhook.id}`, { enabled: false });
    const { status, json } = await call("POST", `/v1/webhooks/${webhook.id}/test`);
    expect(status).toBe(202);
    expect(await deliveriesOf(json.event_id)).toEqual([expect.objectContaining({ webhook_id: webhook.id, event_type: "webhook.test" })]);
  });
});

describe("GET /v1/webhooks/{id}/attempts", () => {
  it("lists the endpoint's attempts newest first, paged, with every documented field", async () => {
    const webhook = await create();
    const neighbour = await create();
    const eventId = newId("webhookEvent");
    const attemptedAt = (n: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, n));
    const rows = [1, 2, 3].map((attempt) => ({
      id: newId("webhookAttempt"),
      webhook_id: webhook.id,
      project_id: project.projectId,
      event_id: eventId,
      event_type: "message.received" as const,
      attempt,
      status: attempt === 3 ? ("succeeded" as const) : ("failed" as const),
      response_status: attempt === 1 ? null : attempt === 2 ? 500 : 204,
      response_body: attempt === 2 ? "boom" : null,
      error: attempt === 1 ? "connection refused" : attempt === 2 ? "http_500" : null,
      duration_ms: 10 * attempt,
      attempted_at: attemptedAt(attempt),
      next_attempt_at: attempt === 3 ? null : attemptedAt(attempt + 5),
    }));
    await server.db.insertInto("webhook_attempts").values(rows).execute();
    await server.db.insertInto("webhook_attempts").values({ ...rows[0]!, id: newId("webhookAttempt"), webhook_id: neighbour.id }).execute();

    const view = ({ project_id: _project, attempted_at, next_attempt_at, ...row }: (typeof rows)[number]) => ({
      ...row,
      attempted_at: attempted_at.toISOString(),
      next_attempt_at: next_attempt_at?.toISOString() ?? null,
    });
    const first = await call("GET", `/v1/webhooks/${webhook.id}/attempts?limit=2`);
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual([view(rows[2]!), view(rows[1]!)]);
    expect(Object.keys(first.json.data[0]).sort()).toEqual(
      ["attempt", "attempted_at", "duration_ms", "error", "event_id", "event_type", "id", "next_attempt_at", "response_body", "response_status", "status", "webhook_id"],
    );
    const second = await call("GET", `/v1/webhooks/${webhook.id}/attempts?limit=2&cursor=${first.json.next_cursor}`);
    expect(second.json).toEqual({ data: [view(rows[0]!)], limit: 2, next_cursor: null });
  });

  it("an endpoint never attempted has an empty log", async () => {
    const webhook = await create();
    expect((await call("GET", `/v1/webhooks/${webhook.id}/attempts`)).json).toEqual({ data: [], limit: 50, next_cursor: null });
  });
});

describe("the tenant wall", () => {
  it("another project's endpoint is 404 webhook_not_found on every route, absent from its list, and stays as it was", async () => {
    const webhook = await create();
    const rowBefore = await storedRow(webhook.id);
    const calls: [string, string, unknown?][] = [
      ["GET", `/v1/webhooks/${webhook.id}`],
      ["PATCH", `/v1/webhooks/${webhook.id}`, { enabled: false }],
      ["DELETE", `/v1/webhooks/${webhook.id}`],
      ["POST", `/v1/webhooks/${webhook.id}/rotate-secret`],
      ["POST", `/v1/webhooks/${webhook.id}/test`],
      ["GET", `/v1/webhooks/${webhook.id}/attempts`],
    ];
    for (const [method, path, body] of calls) notFound(await call(method, path, body, other.apiKey), webhook.id);
    // Found first: a foreign id is 404 even with a refused URL, and no host is looked up for it.
    const asked = dns.questions().length;
    notFound(await call("PATCH", `/v1/webhooks/${webhook.id}`, { url: `http://${names.loopback}/hook` }, other.apiKey), webhook.id);
    expect(dns.questions().length).toBe(asked);
    const listed = await call("GET", "/v1/webhooks?limit=100", undefined, other.apiKey);
    expect(listed.json.data.map((w: Created) => w.id)).not.toContain(webhook.id);
    expect(await storedRow(webhook.id)).toEqual(rowBefore);
    expect(await server.db.selectFrom("webhook_deliveries").select("event_id").where("webhook_id", "=", webhook.id).execute()).toEqual([]);
  });
});
