import { METRICS, STORAGE_METRIC, newId, periodEnd } from "@mailstop/core";
import { SmtpDialogue, eventually, expectError, sendOneRaw, smtpTransport, type TestProject, useTestServer } from "@mailstop/testkit";

const server = useTestServer({ mail: true });

type Limits = { monthly_messages?: number | null; ingest_ceiling?: number | null; rate_limit_read?: number | null; rate_limit_write?: number | null };

async function limitProject(project: TestProject, limits: Limits): Promise<void> {
  const { error } = await server.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: project.projectId } }, body: { limits } });
  expect(error).toBeUndefined();
}

async function updateOrganisation(project: TestProject, body: { organisation_limits?: boolean; suspended?: boolean; limits?: { monthly_messages?: number | null; storage_bytes?: number | null } }) {
  const { error } = await server.admin.PATCH("/admin/v1/organisations/{id}", { params: { path: { id: project.organisationId } }, body });
  expect(error).toBeUndefined();
}

const usage = (project: TestProject) => server.request("GET", "/v1/usage", { apiKey: project.apiKey });

/** `GET /v1/usage`'s metrics as { metric: [used, limit] }. */
async function metrics(project: TestProject): Promise<Record<string, [number, number | null]>> {
  const outcome = await usage(project);
  expect(outcome.status).toBe(200);
  return Object.fromEntries(outcome.json.metrics.map((m: { metric: string; used: number; limit: number | null }) => [m.metric, [m.used, m.limit]]));
}

/** Sends one message to a new inbox of `project` through the receiving edge; returns the inbox and the stored row. */
async function receive(project: TestProject, subject = `Usage ${newId("message")}`, attach = false) {
  const inbox = await server.createInbox({}, project);
  const row = await server.deliver(inbox, { subject, text: "code 483920", ...(attach ? { attachments: [{ filename: "a.txt", content: "attached" }] } : {}) });
  return { inbox, row };
}

/** Sends one message through the capture relay with `project`'s credential; returns its stored row. */
async function capture(project: TestProject, subject = `Captured ${newId("message")}`) {
  const auth = { user: project.smtp.username, pass: project.smtp.password };
  await smtpTransport(server.smtp!.capture, { auth }).sendMail({ from: "app@staging.example", to: "someone@app.example", subject, text: "captured" });
  return eventually(() => server.db.selectFrom("messages").selectAll().where("project_id", "=", project.projectId).where("subject", "=", subject).executeTakeFirst(), { what: `captured "${subject}"` });
}

/** The RCPT reply of the capture relay for `project`'s credential (AUTH PLAIN on a raw dialogue). */
async function captureRcpt(project: TestProject) {
  const { dialogue } = await SmtpDialogue.open(server.smtp!.capture);
  try {
    await dialogue.command("EHLO test.example");
    const auth = await dialogue.command(`AUTH PLAIN ${Buffer.from(`\0${project.smtp.username}\0${project.smtp.password}`).toString("base64")}`);
    expect(auth.code).toBe(235);
    await dialogue.command("MAIL FROM:<app@staging.example>");
    return await dialogue.command("RCPT TO:<someone@app.example>");
  } finally {
    dialogue.close();
  }
}

/** Every message read of the stored message `row` (of `inbox`), as [what, outcome]. */
async function messageReads(project: TestProject, inbox: { id: string }, row: { id: string; subject: string }) {
  const attachment = await server.db.selectFrom("attachments").select("id").where("message_id", "=", row.id).executeTakeFirst();
  const as = { apiKey: project.apiKey };
  return [
    ["get", await server.request("GET", `/v1/messages/${row.id}`, as)],
    ["list", await server.request("GET", `/v1/messages?inbox=${inbox.id}`, as)],
    ["body", await server.request("GET", `/v1/messages/${row.id}/body?format=text`, as)],
    ["checks", await server.request("GET", `/v1/messages/${row.id}/checks`, as)],
    ["link check", await server.request("POST", `/v1/messages/${row.id}/checks/links`, as)],
    ...(attachment ? [["attachment", await server.request("GET", `/v1/messages/${row.id}/attachments/${attachment.id}`, as)] as const] : []),
    ["stream", await server.request("GET", `/stream/v1/inboxes/${inbox.id}/events`, as)],
    ["wait without match", await server.request("POST", "/v1/messages/wait", { ...as, body: { inbox: inbox.id, timeout_ms: 50 } })],
    ["wait with no stored match", await server.request("POST", "/v1/messages/wait", { ...as, body: { inbox: inbox.id, timeout_ms: 50, match: { subject_contains: "nothing like it" } } })],
  ] as const;
}

const resetsAt = () => periodEnd(new Date()).toISOString();

describe("GET /v1/usage", () => {
  it("200: the period, the three metrics and the project's limits, with the server's default rates", async () => {
    const project = await server.bootstrap();
    const outcome = await usage(project);
    expect(outcome.status).toBe(200);
    const now = new Date();
    // The server's own defaults (MAILSTOP_RATE_LIMIT_*; test servers raise them).
    const defaults = { read: server.config.rateLimits.read, write: server.config.rateLimits.write };
    expect(outcome.json).toEqual({
      period: { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(), end: resetsAt() },
      metrics: [
        { metric: METRICS.received, used: 0, limit: null },
        { metric: METRICS.captured, used: 0, limit: null },
        { metric: STORAGE_METRIC, used: 0, limit: null },
      ],
      limits: { max_concurrent_waits: 100, ingest_ceiling: null, rate_limits: defaults },
    });
    await limitProject(project, { monthly_messages: 500, ingest_ceiling: 900, rate_limit_read: 7 });
    const limited = await usage(project);
    expect(limited.json.limits).toEqual({ max_concurrent_waits: 100, ingest_ceiling: 900, rate_limits: { read: 7, write: defaults.write } });
    // One allowance for received plus captured: both message metrics show it.
    expect(limited.json.metrics.map((m: { limit: number | null }) => m.limit)).toEqual([500, 500, null]);
  });

  it("counts received and captured mail after real sends, and storage.bytes after a store, a delete and an inbox delete", async () => {
    const project = await server.bootstrap();
    const first = await receive(project);
    const second = await receive(project);
    const captured = await capture(project);
    const bytes = first.row.size + second.row.size + captured.size;
    expect(await metrics(project)).toEqual({ [METRICS.received]: [2, null], [METRICS.captured]: [1, null], [STORAGE_METRIC]: [bytes, null] });

    expect((await server.request("DELETE", `/v1/messages/${first.row.id}`, { apiKey: project.apiKey })).status).toBe(200);
    // Deleting lowers what is stored, never what was received this period.
    expect(await metrics(project)).toEqual({ [METRICS.received]: [2, null], [METRICS.captured]: [1, null], [STORAGE_METRIC]: [bytes - first.row.size, null] });
    expect((await server.request("DELETE", `/v1/inboxes/${second.inbox.id}`, { apiKey: project.apiKey })).status).toBe(200);
    expect((await metrics(project))[STORAGE_METRIC]).toEqual([captured.size, null]);
  });

  it("403 insufficient_scope without usage:read", async () => {
    const project = await server.bootstrap({ scopes: ["messages:read"] });
    expect(expectError(await usage(project), { status: 403, code: "insufficient_scope", retryable: false }).details).toEqual({ required_scope: "usage:read" });
  });
});

describe("402 quota_exceeded: the project's monthly allowance", () => {
  it("refuses every message read while mail is still accepted and stored; reads resume once the allowance is raised", async () => {
    const project = await server.bootstrap();
    await limitProject(project, { monthly_messages: 2 });
    await capture(project);
    const { inbox, row } = await receive(project, `Spent ${newId("message")}`, true);

    for (const [what, outcome] of await messageReads(project, inbox, row)) {
      const error = expectError(outcome, { status: 402, code: "quota_exceeded", retryable: false });
      expect([what, error.details]).toEqual([what, { limit_kind: "monthly_messages", used: 2, limit: 2, period_resets_at: resetsAt() }]);
    }
    // The seam in the wait: a match already stored is still returned.
    const waited = await server.request("POST", "/v1/messages/wait", { apiKey: project.apiKey, body: { inbox: inbox.id, timeout_ms: 50, match: { subject_contains: "Spent" } } });
    expect(waited.status).toBe(200);
    expect(waited.json).toMatchObject({ status: "matched", message: { id: row.id } });

    // Mail keeps arriving and being stored; usage, inbox reads and writes answer.
    const later = await server.deliver(inbox, { subject: `Still stored ${newId("message")}`, text: "kept" });
    expect(await metrics(project)).toEqual({ [METRICS.received]: [2, 2], [METRICS.captured]: [1, 2], [STORAGE_METRIC]: [expect.any(Number), null] });
    expect((await server.request("GET", `/v1/inboxes/${inbox.id}`, { apiKey: project.apiKey })).status).toBe(200);
    expect((await server.request("POST", "/v1/inboxes", { apiKey: project.apiKey, body: { tag: "still.writable" } })).status).toBe(201);

    await limitProject(project, { monthly_messages: 10 });
    const listed = await server.request("GET", `/v1/messages?inbox=${inbox.id}`, { apiKey: project.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((m: { id: string }) => m.id)).toEqual([later.id, row.id]);
    expect((await server.request("GET", `/v1/messages/${later.id}`, { apiKey: project.apiKey })).status).toBe(200);
  });
});

describe("402 organisation_limit_exceeded: the organisation's limits", () => {
  it("sums messages over the organisation's projects: refuses writes and message reads, answers usage, and the edge refuses its mail with 452 4.3.1", async () => {
    const project = await server.bootstrap();
    // A second project of the same organisation.
    const { data: sibling } = await server.admin.POST("/admin/v1/projects", { body: { organisation_id: project.organisationId } });
    const { data: siblingKey } = await server.admin.POST("/admin/v1/projects/{id}/api-keys", { params: { path: { id: sibling!.id } }, body: {} });
    const { inbox, row } = await receive(project);
    await updateOrganisation(project, { organisation_limits: true, limits: { monthly_messages: 2 } });
    expect((await server.request("GET", `/v1/messages/${row.id}`, { apiKey: project.apiKey })).status).toBe(200);

    const siblingInbox = await server.request("POST", "/v1/inboxes", { apiKey: siblingKey!.key, body: { tag: "sibling" } });
    expect(siblingInbox.status).toBe(201);
    await server.deliver({ id: siblingInbox.json.id, address: siblingInbox.json.address }, { subject: `Sibling ${newId("message")}`, text: "x" });

    const details = { limit_kind: "monthly_messages", used: 2, limit: 2, period_resets_at: resetsAt() };
    const write = await server.request("POST", "/v1/inboxes", { apiKey: project.apiKey, body: { tag: "refused" } });
    expect(expectError(write, { status: 402, code: "organisation_limit_exceeded", retryable: true }).details).toEqual(details);
    for (const [what, outcome] of await messageReads(project, inbox, row)) {
      expect([what, expectError(outcome, { status: 402, code: "organisation_limit_exceeded", retryable: true }).details]).toEqual([what, details]);
    }
    expect(expectError(await server.request("DELETE", `/v1/messages/${row.id}`, { apiKey: siblingKey!.key }), { status: 402, code: "organisation_limit_exceeded", retryable: true }).details).toEqual(details);
    // Usage always answers, with the organisation's totals against its limits; inbox reads too.
    expect(await metrics(project)).toEqual({ [METRICS.received]: [2, 2], [METRICS.captured]: [0, 2], [STORAGE_METRIC]: [expect.any(Number), null] });
    expect((await server.request("GET", `/v1/inboxes/${inbox.id}`, { apiKey: project.apiKey })).status).toBe(200);

    // The edge refuses the organisation's mail while it lasts, on both listeners; nothing is stored.
    const refused = await sendOneRaw(server.smtpPort, inbox.address, "Refused at RCPT");
    expect([refused.code, refused.text]).toEqual([452, expect.stringMatching(/^4\.3\.1 /)]);
    const relayed = await captureRcpt(project);
    expect([relayed.code, relayed.text]).toEqual([452, expect.stringMatching(/^4\.3\.1 /)]);

    // Limits off, the same numbers: the project's own allowance (none here) applies again.
    await updateOrganisation(project, { organisation_limits: false });
    expect((await server.request("GET", `/v1/messages/${row.id}`, { apiKey: project.apiKey })).status).toBe(200);
    expect((await sendOneRaw(server.smtpPort, inbox.address, "Accepted again")).code).toBe(250);
  });

  it("with organisation limits off, the same numbers as a project allowance give quota_exceeded instead, and mail is accepted", async () => {
    const project = await server.bootstrap();
    const { inbox, row } = await receive(project);
    await updateOrganisation(project, { organisation_limits: false, limits: { monthly_messages: 1 } });
    await limitProject(project, { monthly_messages: 1 });
    const read = await server.request("GET", `/v1/messages/${row.id}`, { apiKey: project.apiKey });
    expect(expectError(read, { status: 402, code: "quota_exceeded", retryable: false }).details).toEqual({ limit_kind: "monthly_messages", used: 1, limit: 1, period_resets_at: resetsAt() });
    expect((await server.request("POST", "/v1/inboxes", { apiKey: project.apiKey, body: { tag: "writable" } })).status).toBe(201);
    expect((await sendOneRaw(server.smtpPort, inbox.address, "Accepted")).code).toBe(250);
    expect((await captureRcpt(project)).code).toBe(250);
  });

  it("refuses on the organisation's stored bytes (limit_kind storage_bytes) until the limit is raised", async () => {
    const project = await server.bootstrap();
    const { inbox, row } = await receive(project);
    await updateOrganisation(project, { organisation_limits: true, limits: { storage_bytes: row.size } });
    const details = { limit_kind: "storage_bytes", used: row.size, limit: row.size, period_resets_at: resetsAt() };
    expect(expectError(await server.request("GET", `/v1/messages/${row.id}`, { apiKey: project.apiKey }), { status: 402, code: "organisation_limit_exceeded", retryable: true }).details).toEqual(details);
    expect(expectError(await server.request("DELETE", `/v1/messages/${row.id}`, { apiKey: project.apiKey }), { status: 402, code: "organisation_limit_exceeded", retryable: true }).details).toEqual(details);
    expect((await metrics(project))[STORAGE_METRIC]).toEqual([row.size, row.size]);
    expect((await sendOneRaw(server.smtpPort, inbox.address, "Over the bytes")).code).toBe(452);

    await updateOrganisation(project, { limits: { storage_bytes: row.size + 1 } });
    expect((await server.request("GET", `/v1/messages/${row.id}`, { apiKey: project.apiKey })).status).toBe(200);
    expect((await sendOneRaw(server.smtpPort, inbox.address, "Under the bytes")).code).toBe(250);
  });
});

describe("a suspended organisation at the SMTP edge", () => {
  it("is refused 550 5.7.1 at RCPT on the receiving edge and the capture relay, and accepted again once reinstated", async () => {
    const project = await server.bootstrap();
    const inbox = await server.createInbox({}, project);
    await updateOrganisation(project, { suspended: true });
    const received = await sendOneRaw(server.smtpPort, inbox.address, "Suspended");
    expect([received.code, received.text]).toEqual([550, expect.stringMatching(/^5\.7\.1 /)]);
    const captured = await captureRcpt(project);
    expect([captured.code, captured.text]).toEqual([550, expect.stringMatching(/^5\.7\.1 /)]);
    expectError(await usage(project), { status: 403, code: "abuse_suspended", retryable: false });

    await updateOrganisation(project, { suspended: false });
    expect((await sendOneRaw(server.smtpPort, inbox.address, "Reinstated")).code).toBe(250);
    expect((await captureRcpt(project)).code).toBe(250);
  });
});
