import { createHash } from "node:crypto";
import { captureTag, newId } from "@mailstop/core";
import {
  TEST_ADMIN_TOKEN,
  TEST_SECRETS_KEY,
  type TestDns,
  type TestProject,
  eventually,
  expectError,
  insertMessageRows,
  keyRequest,
  rawRequest,
  smtpTransport,
  startTestDns,
  uniqueDomain,
  uniqueRunId,
  uniqueTag,
  useTestServer,
} from "@mailstop/testkit";
import { sql } from "kysely";

// The audit trail: every action of docs/decisions.md "Audit trail and erasure" written with its
// actor, target and request id; the listing's filters, paging and tenant wall; and the rule
// that an event and its change commit or roll back together (triggers that break either side).

let dns: TestDns;
beforeAll(async () => {
  dns = await startTestDns();
});
const server = useTestServer(() => ({
  project: false,
  mail: true,
  env: { MAILSTOP_DNS_SERVERS: dns.server, MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.2/32", MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY },
}));
afterAll(async () => {
  await dns?.stop();
});

const ALLOWED_URL = "http://127.0.0.2:9/hook";

type Outcome = Awaited<ReturnType<typeof rawRequest>>;

interface AuditEventView {
  id: string;
  at: string;
  actor: { type: string; id: string };
  action: string;
  target: { type: string; id: string };
  request_id: string | null;
  details: Record<string, unknown>;
}

const call = (owner: TestProject, method: string, path: string, body?: unknown) => keyRequest(server.url, owner.apiKey, method, path, body);

function admin(method: string, path: string, body?: unknown): Promise<Outcome> {
  return rawRequest(server.url, method, path, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Every event of the project (at most 200), newest first, optionally filtered. */
async function events(owner: TestProject, query = ""): Promise<AuditEventView[]> {
  const { status, json } = await call(owner, "GET", `/v1/audit-events?limit=200${query}`);
  expect(status).toBe(200);
  return json.data;
}

/** The events of `action` about `targetId`, newest first. */
async function eventsOf(owner: TestProject, action: string, targetId: string): Promise<AuditEventView[]> {
  return (await events(owner, `&action=${action}`)).filter((event) => event.target.id === targetId);
}

/** Asserts one event of `action` on the target, by the project's key in the request of `response`; returns it. */
async function expectKeyEvent(owner: TestProject, action: string, target: { type: string; id: string }, response: Outcome): Promise<AuditEventView> {
  const found = await eventsOf(owner, action, target.id);
  expect(found).toHaveLength(1);
  expect(found[0]).toMatchObject({
    id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
    actor: { type: "api_key", id: owner.apiKeyId },
    action,
    target,
    request_id: response.headers.get("x-request-id"),
  });
  return found[0]!;
}

describe("GET /v1/audit-events: what each change writes", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await server.bootstrap();
  });

  it("inboxes: inbox.created only when an inbox is created (create, for-run, fixtures), inbox.deleted, inboxes.cleaned_up", async () => {
    const tag = uniqueTag("audited");
    const created = await call(project, "POST", "/v1/inboxes", { tag });
    expect(created.status).toBe(201);
    const event = await expectKeyEvent(project, "inbox.created", { type: "inbox", id: created.json.id }, created);
    expect(event.details).toEqual({ address: created.json.address, tag });
    // The idempotent create returns the same inbox and writes nothing.
    expect((await call(project, "POST", "/v1/inboxes", { tag })).json.id).toBe(created.json.id);
    expect(await eventsOf(project, "inbox.created", created.json.id)).toHaveLength(1);

    const runId = uniqueRunId("audit");
    const forRun = await call(project, "POST", "/v1/inboxes/for-run", { run_id: runId });
    await call(project, "POST", "/v1/inboxes/for-run", { run_id: runId });
    await expectKeyEvent(project, "inbox.created", { type: "inbox", id: forRun.json.id }, forRun);

    const fixtureRun = uniqueRunId("audit-fx");
    const manifest = { version: 1, fixtures: [{ name: "signup", retention_seconds: 600 }] };
    const ensured = await call(project, "POST", "/v1/fixtures/ensure", { run_id: fixtureRun, manifest });
    await call(project, "POST", "/v1/fixtures/ensure", { run_id: fixtureRun, manifest });
    await expectKeyEvent(project, "inbox.created", { type: "inbox", id: ensured.json.fixtures[0].inbox.id }, ensured);

    await insertMessageRows(server.db, created.json, project.projectId, 2);
    const deleted = await call(project, "DELETE", `/v1/inboxes/${created.json.id}`);
    expect(deleted.status).toBe(200);
    const deletion = await expectKeyEvent(project, "inbox.deleted", { type: "inbox", id: created.json.id }, deleted);
    expect(deletion.details).toEqual({ address: created.json.address, messages_deleted: 2 });
    // Deleting it again is a 404 and writes nothing.
    expect((await call(project, "DELETE", `/v1/inboxes/${created.json.id}`)).status).toBe(404);
    expect(await eventsOf(project, "inbox.deleted", created.json.id)).toHaveLength(1);

    const cleaned = await call(project, "POST", "/v1/inboxes/cleanup", { tag_prefix: `run.${runId}` });
    expect(cleaned.json).toEqual({ inboxes_deleted: 1, messages_deleted: 0 });
    const cleanup = await expectKeyEvent(project, "inboxes.cleaned_up", { type: "project", id: project.projectId }, cleaned);
    expect(cleanup.details).toEqual({
      selector: { tag_prefix: `run.${runId}`, label_key: null, label_value: null },
      inboxes_deleted: 1,
      messages_deleted: 0,
      inbox_ids: [forRun.json.id],
    });
    // A batch that deletes nothing changes nothing.
    const before = (await events(project, "&action=inboxes.cleaned_up")).length;
    expect((await call(project, "POST", "/v1/inboxes/cleanup", { tag_prefix: `run.${runId}` })).json.inboxes_deleted).toBe(0);
    expect(await events(project, "&action=inboxes.cleaned_up")).toHaveLength(before);
  });

  it("messages: message.deleted once, for the call that deleted it", async () => {
    const inbox = (await call(project, "POST", "/v1/inboxes", { tag: uniqueTag("msg") })).json;
    const [id] = await insertMessageRows(server.db, inbox, project.projectId, 1);
    const deleted = await call(project, "DELETE", `/v1/messages/${id}`);
    expect(deleted.status).toBe(200);
    await expectKeyEvent(project, "message.deleted", { type: "message", id: id! }, deleted);
    expect((await call(project, "DELETE", `/v1/messages/${id}`)).status).toBe(404);
    expect(await eventsOf(project, "message.deleted", id!)).toHaveLength(1);
  });

  it("domains: domain.created, domain.verified, domain.deleted; a stale claim released is domain.deleted in its owner's trail, by the system", async () => {
    const name = uniqueDomain("audit");
    const created = await call(project, "POST", "/v1/domains", { domain: name });
    expect(created.status).toBe(201);
    const domain = created.json;
    expect((await expectKeyEvent(project, "domain.created", { type: "domain", id: domain.id }, created)).details).toEqual({ domain: name });

    dns.set(`_mailstop-verification.${name}`, { txt: [`mailstop-verification=${domain.verification_token}`] });
    dns.set(name, { mx: [{ exchange: server.config.mxHost, priority: 10 }] });
    const verified = await call(project, "POST", `/v1/domains/${domain.id}/verify`);
    expect(verified.json.status).toBe("verified");
    await expectKeyEvent(project, "domain.verified", { type: "domain", id: domain.id }, verified);
    // Verifying a verified domain changes nothing.
    await call(project, "POST", `/v1/domains/${domain.id}/verify`);
    expect(await eventsOf(project, "domain.verified", domain.id)).toHaveLength(1);

    const deleted = await call(project, "DELETE", `/v1/domains/${domain.id}`);
    expect(deleted.status).toBe(200);
    await expectKeyEvent(project, "domain.deleted", { type: "domain", id: domain.id }, deleted);

    // Another project's claim, pending for 8 days, is released by this project's claim.
    const other = await server.bootstrap();
    const stale = uniqueDomain("stale");
    const claimed = (await call(other, "POST", "/v1/domains", { domain: stale })).json;
    await sql`update domains set created_at = now() - interval '8 days' where id = ${claimed.id}`.execute(server.db);
    const taken = await call(project, "POST", "/v1/domains", { domain: stale });
    expect(taken.status).toBe(201);
    const released = await eventsOf(other, "domain.deleted", claimed.id);
    expect(released).toEqual([
      expect.objectContaining({ actor: { type: "system", id: "domain-claims" }, request_id: null, details: { domain: stale, reason: "pending_claim_expired" } }),
    ]);
    expect(await eventsOf(project, "domain.deleted", claimed.id)).toEqual([]);
  });

  it("webhooks: webhook.created, webhook.updated (the fields set), webhook.secret_rotated, webhook.deleted; never the secret", async () => {
    const created = await call(project, "POST", "/v1/webhooks", { url: ALLOWED_URL, events: ["message.received"] });
    expect(created.status).toBe(201);
    const { id, secret } = created.json;
    expect((await expectKeyEvent(project, "webhook.created", { type: "webhook", id }, created)).details).toEqual({ url: ALLOWED_URL, events: ["message.received"] });

    const updated = await call(project, "PATCH", `/v1/webhooks/${id}`, { description: "ci", enabled: false });
    expect(updated.status).toBe(200);
    expect((await expectKeyEvent(project, "webhook.updated", { type: "webhook", id }, updated)).details).toEqual({ changes: { description: "ci", enabled: false } });

    const rotated = await call(project, "POST", `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const rotation = await expectKeyEvent(project, "webhook.secret_rotated", { type: "webhook", id }, rotated);
    expect(rotation.details).toEqual({ previous_secret_valid_until: expect.any(String) });

    const deleted = await call(project, "DELETE", `/v1/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    await expectKeyEvent(project, "webhook.deleted", { type: "webhook", id }, deleted);
    expect((await call(project, "DELETE", `/v1/webhooks/${id}`)).status).toBe(404);
    expect(await eventsOf(project, "webhook.deleted", id)).toHaveLength(1);

    const all = JSON.stringify(await events(project));
    for (const shown of [secret, rotated.json.secret]) expect(all).not.toContain(shown.slice("whsec_".length));
  });

  it("webhooks: a URL's user name, password and query values are redacted in webhook.created and webhook.updated, and never logged", async () => {
    const owner = await server.bootstrap();
    const url = "http://user:secret@127.0.0.2:9/hook?token=abc&v=2";
    const created = await call(owner, "POST", "/v1/webhooks", { url, events: ["message.received"] });
    expect(created.status).toBe(201);
    // The owner's own view keeps the URL it registered: deliveries need it whole.
    expect(created.json.url).toBe(url);
    const { id } = created.json;
    const createdEvent = await expectKeyEvent(owner, "webhook.created", { type: "webhook", id }, created);
    expect(createdEvent.details).toEqual({ url: "http://***:***@127.0.0.2:9/hook?token=***&v=***", events: ["message.received"] });
    const updated = await call(owner, "PATCH", `/v1/webhooks/${id}`, { url: "http://user:secret@127.0.0.2:9/other?token=abc", description: "ci" });
    expect(updated.status).toBe(200);
    expect((await expectKeyEvent(owner, "webhook.updated", { type: "webhook", id }, updated)).details).toEqual({
      changes: { url: "http://***:***@127.0.0.2:9/other?token=***", description: "ci" },
    });

    const trail = JSON.stringify((await events(owner)).filter((event) => event.action.startsWith("webhook.")));
    for (const hidden of ["secret", "abc", "user:"]) expect(trail).not.toContain(hidden);
    for (const hidden of ["user:secret@", "token=abc"]) expect(server.logs()).not.toContain(hidden);
  });

  it("admin: api_key.created and smtp_credential.replaced on bootstrap, api_key.created, api_key.revoked once, smtp_credential.replaced, project.limits_updated; by admin", async () => {
    const boot = await admin("POST", "/admin/v1/bootstrap", {});
    expect(boot.status).toBe(201);
    const owner = { apiKey: boot.json.api_key, apiKeyId: boot.json.api_key_id, projectId: boot.json.project_id } as TestProject;
    const byAdmin = (response: Outcome) => ({ actor: { type: "admin", id: "admin" }, request_id: response.headers.get("x-request-id") });

    expect(await eventsOf(owner, "api_key.created", boot.json.api_key_id)).toEqual([
      expect.objectContaining({ ...byAdmin(boot), target: { type: "api_key", id: boot.json.api_key_id }, details: { scopes: expect.any(Array), environment: "test", expires_at: null } }),
    ]);
    expect(await eventsOf(owner, "smtp_credential.replaced", boot.json.project_key)).toEqual([
      expect.objectContaining({ ...byAdmin(boot), target: { type: "smtp_credential", id: boot.json.project_key } }),
    ]);

    const key = await admin("POST", `/admin/v1/projects/${owner.projectId}/api-keys`, { scopes: ["usage:read"], environment: "live" });
    expect(key.status).toBe(201);
    expect(await eventsOf(owner, "api_key.created", key.json.id)).toEqual([
      expect.objectContaining({ ...byAdmin(key), details: { scopes: ["usage:read"], environment: "live", expires_at: null } }),
    ]);
    const revoked = await admin("DELETE", `/admin/v1/api-keys/${key.json.id}`);
    expect(revoked.status).toBe(200);
    expect((await admin("DELETE", `/admin/v1/api-keys/${key.json.id}`)).status).toBe(200);
    expect(await eventsOf(owner, "api_key.revoked", key.json.id)).toEqual([expect.objectContaining({ ...byAdmin(revoked), target: { type: "api_key", id: key.json.id } })]);

    const replaced = await admin("POST", `/admin/v1/projects/${owner.projectId}/smtp-credentials`);
    expect(replaced.status).toBe(201);
    const replacements = await eventsOf(owner, "smtp_credential.replaced", boot.json.project_key);
    expect(replacements).toHaveLength(2);
    expect(replacements[0]).toMatchObject(byAdmin(replaced));
    expect(JSON.stringify(await events(owner))).not.toContain(replaced.json.password);

    const patched = await admin("PATCH", `/admin/v1/projects/${owner.projectId}`, { limits: { max_concurrent_waits: 7, ingest_ceiling: null } });
    expect(patched.status).toBe(200);
    expect(await eventsOf(owner, "project.limits_updated", owner.projectId)).toEqual([
      expect.objectContaining({ ...byAdmin(patched), target: { type: "project", id: owner.projectId }, details: { limits: { max_concurrent_waits: 7, ingest_ceiling: null } } }),
    ]);
    // A PATCH that sets nothing changes nothing.
    await admin("PATCH", `/admin/v1/projects/${owner.projectId}`, { limits: {} });
    expect(await eventsOf(owner, "project.limits_updated", owner.projectId)).toHaveLength(1);
  });
});

describe("inbox.created for an inbox the capture relay creates", () => {
  it("is written by the system (capture-relay) with the recipient's SHA-256, never its address or tag; a capture into that inbox writes none", async () => {
    const project = await server.bootstrap();
    const local = `Cap.${newId("message").slice(-12)}`;
    const recipient = `${local}+X@Customer.Example`;
    const relay = smtpTransport(server.smtp!.capture, { auth: { user: project.smtp.username, pass: project.smtp.password } });
    const capture = (subject: string) => relay.sendMail({ from: "app@staging.example", to: recipient, subject, text: "captured" });

    await capture("first");
    const created = await eventually(async () => (await events(project, "&action=inbox.created"))[0], { what: "the capture inbox's inbox.created", timeoutMs: 30_000 });
    expect(created).toMatchObject({ actor: { type: "system", id: "capture-relay" }, request_id: null, target: { type: "inbox", id: expect.stringMatching(/^ibx_/) } });
    expect(created.details).toEqual({ created_by: "capture_relay", recipient_sha256: createHash("sha256").update(recipient.toLowerCase()).digest("hex") });
    const inbox = await call(project, "GET", `/v1/inboxes/${created.target.id}`);
    expect(inbox.json.tag).toBe(captureTag(recipient));

    await capture("second");
    await eventually(async () => {
      const listed = await call(project, "GET", `/v1/messages?inbox=${created.target.id}&limit=100`);
      return listed.json.data.find((message: { subject: string }) => message.subject === "second");
    }, { what: "the second capture", timeoutMs: 30_000 });
    expect(await events(project, "&action=inbox.created")).toEqual([created]);

    const trail = JSON.stringify(await events(project)).toLowerCase();
    for (const hidden of [recipient.toLowerCase(), local.toLowerCase(), captureTag(recipient)!, "customer.example", inbox.json.address.toLowerCase()]) expect(trail).not.toContain(hidden);
  });
});

describe("GET /v1/audit-events: the listing", () => {
  let project: TestProject;
  let other: TestProject;
  let all: AuditEventView[];
  beforeAll(async () => {
    [project, other] = await Promise.all([server.bootstrap(), server.bootstrap()]);
    for (let i = 0; i < 5; i++) await call(project, "POST", "/v1/inboxes", { tag: uniqueTag(`list${i}`) });
    await call(other, "POST", "/v1/inboxes", { tag: uniqueTag("theirs") });
    all = await events(project);
  });

  it("answers newest first by (at, id), in the documented shape", async () => {
    // Bootstrap's api_key.created and smtp_credential.replaced, then five inboxes.
    expect(all.map((event) => event.action)).toEqual([...Array(5).fill("inbox.created"), "smtp_credential.replaced", "api_key.created"]);
    const order = all.map((event) => `${event.at} ${event.id}`);
    expect(order).toEqual([...order].sort().reverse());
    for (const event of all) expect(Object.keys(event).sort()).toEqual(["action", "actor", "at", "details", "id", "request_id", "target"]);
  });

  it("pages with next_cursor, each event once, the last page's cursor null", async () => {
    const seen: AuditEventView[] = [];
    let cursor: string | null = null;
    do {
      const page: Outcome = await call(project, "GET", `/v1/audit-events?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`);
      expect(page.status).toBe(200);
      expect(page.json.limit).toBe(2);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.data);
      cursor = page.json.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(all);
  });

  it("filters by action, since (inclusive) and until (exclusive)", async () => {
    expect(await events(project, "&action=inbox.created")).toEqual(all.filter((event) => event.action === "inbox.created"));
    expect(await events(project, "&action=webhook.deleted")).toEqual([]);
    const pivot = all[2]!.at;
    expect(await events(project, `&since=${pivot}`)).toEqual(all.filter((event) => event.at >= pivot));
    expect(await events(project, `&until=${pivot}`)).toEqual(all.filter((event) => event.at < pivot));
    expect(await events(project, `&since=${pivot}&until=${pivot}`)).toEqual([]);
  });

  it("never shows another project's events", async () => {
    const theirs = await events(other);
    expect(theirs.length).toBeGreaterThan(0);
    const mine = new Set(all.map((event) => event.id));
    for (const event of theirs) expect(mine.has(event.id)).toBe(false);
    expect(all.every((event) => event.target.id !== other.projectId && event.actor.id !== other.apiKeyId)).toBe(true);
  });

  it("refuses an unknown action, a date that is not one and a forged cursor with 400 invalid_request", async () => {
    for (const query of ["action=inbox.renamed", "since=yesterday", "until=2026-13-01", `cursor=${Buffer.from(JSON.stringify({ v: 1, before: "x" })).toString("base64url")}`]) {
      expectError(await call(project, "GET", `/v1/audit-events?${query}`), { status: 400, code: "invalid_request", retryable: false });
    }
  });

  it("needs usage:read: a key without it gets 403 insufficient_scope, a key with only it reads", async () => {
    const reader = await admin("POST", `/admin/v1/projects/${project.projectId}/api-keys`, { scopes: ["inboxes:read", "inboxes:write"] });
    expectError(await keyRequest(server.url, reader.json.key, "GET", "/v1/audit-events"), { status: 403, code: "insufficient_scope", retryable: false });
    const auditor = await admin("POST", `/admin/v1/projects/${project.projectId}/api-keys`, { scopes: ["usage:read"] });
    const { status, json } = await keyRequest(server.url, auditor.json.key, "GET", "/v1/audit-events?action=inbox.created");
    expect(status).toBe(200);
    expect(json.data).toEqual(all.filter((event) => event.action === "inbox.created"));
    expectError(await rawRequest(server.url, "GET", "/v1/audit-events"), { status: 401, code: "unauthenticated", retryable: false });
  });
});

describe("an audit event and its change commit or roll back together", () => {
  /** Installs a trigger on `table` that refuses rows of the project, for the body of `work`; dropped afterwards. */
  async function withRefusal(table: "audit_events" | "inboxes", projectId: string, timing: "before" | "deferred", work: () => Promise<void>): Promise<void> {
    const name = `refuse_${newId("auditEvent").slice(-12)}`;
    await sql
      .raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'refused by the test (${table})'; end $$`)
      .execute(server.db);
    const when = `when (new.project_id = '${projectId}')`;
    await sql
      .raw(
        timing === "before"
          ? `create trigger ${name} before insert or update on ${table} for each row ${when} execute function ${name}()`
          : `create constraint trigger ${name} after insert or update on ${table} deferrable initially deferred for each row ${when} execute function ${name}()`,
      )
      .execute(server.db);
    try {
      await work();
    } finally {
      await sql.raw(`drop trigger ${name} on ${table}`).execute(server.db);
      await sql.raw(`drop function ${name}()`).execute(server.db);
    }
  }

  const internal = { status: 500, code: "internal", retryable: true } as const;

  it("the audit insert fails: the inbox, the webhook, the erasure and the revocation are not there either", async () => {
    const project = await server.bootstrap();
    const inbox = (await call(project, "POST", "/v1/inboxes", { tag: uniqueTag("kept") })).json;
    await insertMessageRows(server.db, inbox, project.projectId, 2);
    const tag = uniqueTag("refused");
    await withRefusal("audit_events", project.projectId, "before", async () => {
      expect((await call(project, "POST", "/v1/inboxes", { tag })).status).toBe(500);
      expect((await call(project, "POST", "/v1/webhooks", { url: ALLOWED_URL, events: ["message.received"] })).status).toBe(500);
      expect((await call(project, "POST", "/v1/erasure", { address: inbox.address })).status).toBe(500);
      expect((await admin("DELETE", `/admin/v1/api-keys/${project.apiKeyId}`)).status).toBe(500);
    });
    const inboxes = (await call(project, "GET", `/v1/inboxes?tag_prefix=${tag}`)).json.data;
    expect(inboxes).toEqual([]);
    expect((await call(project, "GET", "/v1/webhooks")).json.data).toEqual([]);
    expect((await call(project, "GET", `/v1/messages?inbox=${inbox.id}`)).json.data).toHaveLength(2);
    // The key still works: its revocation rolled back.
    expect((await call(project, "GET", "/v1/auth/check")).status).toBe(200);
    expect((await events(project)).map((event) => event.action)).toEqual(["inbox.created", "smtp_credential.replaced", "api_key.created"]);
  });

  it("the change fails after its audit row was written (at commit): no audit row either", async () => {
    const project = await server.bootstrap();
    const tag = uniqueTag("refused");
    await withRefusal("inboxes", project.projectId, "deferred", async () => {
      expectError(await call(project, "POST", "/v1/inboxes", { tag }), internal);
    });
    expect((await call(project, "GET", `/v1/inboxes?tag_prefix=${tag}`)).json.data).toEqual([]);
    expect(await events(project, "&action=inbox.created")).toEqual([]);
    // With the trigger gone the same request succeeds and is audited.
    const created = await call(project, "POST", "/v1/inboxes", { tag });
    expect(created.status).toBe(201);
    await expectKeyEvent(project, "inbox.created", { type: "inbox", id: created.json.id }, created);
  });
});
