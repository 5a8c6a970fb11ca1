import { type TestDns, defaultSmtpTransport, eventually, freePort, startTcpProxy, startTestDns, uniqueDomain, uniqueRunId, uniqueTag, useTestServer } from "@mailstop/testkit";
import { Mailstop, MailstopError, type StreamMessage, WaitTimeoutError, captureTagOf } from "./index";

// The SDK against a real mailstop (both worlds): one call per route of every resource, its
// typed errors, the wait helpers, retries and the resuming stream. The stream's connections
// last MAX_DURATION_S, so a test sees the server close one and the SDK resume.
const MAX_DURATION_S = 3;

let dns: TestDns;
beforeAll(async () => {
  dns = await startTestDns();
});
const server = useTestServer(() => ({ mail: true, env: { MAILSTOP_STREAM_MAX_DURATION_S: String(MAX_DURATION_S), MAILSTOP_DNS_SERVERS: dns.server } }));
afterAll(() => dns?.stop());

const sdk = (options: ConstructorParameters<typeof Mailstop>[0] = {}) => new Mailstop({ baseUrl: server.url, apiKey: server.apiKey, ...options });

/** The MailstopError `call` fails with (a test fails when it succeeds or fails otherwise). */
async function failure(call: Promise<unknown>): Promise<MailstopError> {
  const error = await call.then(
    () => null,
    (cause: unknown) => cause,
  );
  expect(error).toBeInstanceOf(MailstopError);
  return error as MailstopError;
}

describe("configuration", () => {
  it("reads MAILSTOP_API_URL and MAILSTOP_API_KEY, and the options override them", async () => {
    const saved = { url: process.env.MAILSTOP_API_URL, key: process.env.MAILSTOP_API_KEY };
    try {
      process.env.MAILSTOP_API_URL = server.url;
      process.env.MAILSTOP_API_KEY = server.apiKey;
      const fromEnv = new Mailstop();
      expect(fromEnv.baseUrl).toBe(server.url);
      expect((await fromEnv.meta.checkAuth()).project.id).toBe(server.project.projectId);
      const overridden = new Mailstop({ apiKey: "is_test_unknown0000000000000000000000000" });
      expect((await failure(overridden.meta.checkAuth())).code).toBe("invalid_api_key");
      delete process.env.MAILSTOP_API_URL;
      expect(new Mailstop().baseUrl).toBe("http://localhost:8025");
    } finally {
      for (const [name, value] of [["MAILSTOP_API_URL", saved.url], ["MAILSTOP_API_KEY", saved.key]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe("typed errors", () => {
  it("turns 404 inbox_not_found into a MailstopError with code, retryable, status and the request id", async () => {
    const error = await failure(sdk().inboxes.get("ibx_00000000000000000000000000"));
    expect(error).toMatchObject({ name: "MailstopError", code: "inbox_not_found", retryable: false, status: 404 });
    expect(error.requestId).toMatch(/^req_/);
    expect(error.message).not.toBe("");
  });

  it("carries the envelope's details (invalid_request lists each failure)", async () => {
    const error = await failure(sdk().inboxes.create({ tag: "Not A Tag!" }));
    expect(error).toMatchObject({ code: "invalid_request", retryable: false, status: 400 });
    expect(error.details?.errors?.length).toBeGreaterThan(0);
  });

  it("reports an unreachable server as a retryable network_error after its attempts", async () => {
    const error = await failure(new Mailstop({ baseUrl: "http://127.0.0.1:9", apiKey: "x", maxAttempts: 2 }).inboxes.list());
    expect(error).toMatchObject({ code: "network_error", retryable: true, status: 0, requestId: undefined });
    // The origin and why, not fetch's own "fetch failed": the CLI and the MCP tools print this reason.
    expect(error.message).toBe("Could not reach mailstop at http://127.0.0.1:9 (bad port)");
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await failure(new Mailstop({ baseUrl: closed, apiKey: "x", maxAttempts: 1 }).inboxes.list());
    expect(refused.message).toBe(`Could not reach mailstop at ${closed} (ECONNREFUSED)`);
  });
});

describe("inboxes and fixtures", () => {
  it("covers create (idempotent), forRun, get by id and address, list, listAll, streamToken, delete and cleanup", async () => {
    const mailstop = sdk();
    const prefix = uniqueTag("sdk");
    const created = await mailstop.inboxes.create({ tag: `${prefix}.a`, labels: { suite: "sdk" } });
    expect(await mailstop.inboxes.create({ tag: `${prefix}.a` })).toMatchObject({ id: created.id, address: created.address });
    expect((await mailstop.inboxes.get(created.address)).id).toBe(created.id);
    const runId = uniqueRunId();
    const forRun = await mailstop.inboxes.forRun(runId);
    expect((await mailstop.inboxes.forRun(runId)).id).toBe(forRun.id);
    await mailstop.inboxes.create({ tag: `${prefix}.b` });
    await mailstop.inboxes.create({ tag: `${prefix}.c` });
    const page = await mailstop.inboxes.list({ tag_prefix: prefix, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.next_cursor).not.toBeNull();
    const all: string[] = [];
    for await (const inbox of mailstop.inboxes.listAll({ tag_prefix: prefix, limit: 2 })) all.push(inbox.tag);
    expect(all.sort()).toEqual([`${prefix}.a`, `${prefix}.b`, `${prefix}.c`]);
    const token = await mailstop.inboxes.streamToken(created.id);
    expect(token.stream_url).toContain(`/stream/v1/inboxes/${created.id}/events?token=`);
    expect(await mailstop.inboxes.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
    expect((await failure(mailstop.inboxes.get(created.id))).code).toBe("inbox_not_found");
    expect(await mailstop.inboxes.cleanupAll({ tag_prefix: prefix })).toBe(2);
    expect(await mailstop.inboxes.cleanup({ tag_prefix: prefix })).toEqual({ inboxes_deleted: 0, messages_deleted: 0 });
    await mailstop.inboxes.delete(forRun.id);
  });

  it("ensures fixtures and cleans them up with the returned selectors", async () => {
    const mailstop = sdk();
    const result = await mailstop.fixtures.ensure({ run_id: uniqueRunId("fx"), manifest: { version: 1, fixtures: [{ name: "signup", retention_seconds: 3600 }] } });
    expect(result.status).toBe("ready");
    expect(result.fixtures).toHaveLength(1);
    expect((await mailstop.inboxes.cleanup(result.cleanup)).inboxes_deleted).toBe(1);
  });
});

describe("messages", () => {
  it("waits (the raw union), lists, gets, downloads a body part and an attachment, and deletes", async () => {
    const mailstop = sdk();
    const inbox = await server.createInbox();
    const subject = `Your code ${uniqueTag("m")}`;
    const waiting = mailstop.messages.wait({ inbox: inbox.id, match: { subject_contains: subject }, timeout_ms: 30_000 });
    await server.send({
      to: inbox.address,
      subject,
      text: "Your code is 482913",
      html: "<p>Your code is <b>482913</b></p>",
      attachments: [{ filename: "note.txt", content: "attached bytes" }],
    });
    const result = await waiting;
    if (result.status !== "matched") throw new Error(`expected a match, got ${JSON.stringify(result)}`);
    const id = result.message.id;
    expect(result.message.codes).toContain("482913");

    const page = await mailstop.messages.list({ inbox: inbox.id, subject_contains: subject });
    expect(page.data.map((m) => m.id)).toEqual([id]);
    const all: string[] = [];
    for await (const message of mailstop.messages.listAll({ inbox: inbox.address })) all.push(message.id);
    expect(all).toEqual([id]);

    const view = await mailstop.messages.get(id, { format: ["html"] });
    expect(view.subject).toBe(subject);
    expect(await mailstop.messages.body(id, "text")).toContain("Your code is 482913");
    expect(await mailstop.messages.body(id, "raw")).toContain(`Subject: ${subject}`);
    const attachment = view.attachments[0];
    if (attachment === undefined) throw new Error("the message has no attachment");
    const url = await mailstop.messages.attachmentUrl(id, attachment.id);
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe("attached bytes");
    expect((await failure(mailstop.messages.attachmentUrl(id, "att_00000000000000000000000000"))).code).toBe("attachment_not_found");

    expect(await mailstop.messages.delete(id)).toMatchObject({ id });
    expect((await failure(mailstop.messages.get(id))).code).toBe("message_not_found");
    expect((await failure(mailstop.messages.checks(id))).code).toBe("message_not_found");
  });

  it("reads a message's checks, and checks its links on request", async () => {
    const mailstop = sdk();
    const inbox = await server.createInbox();
    const subject = `Checks ${uniqueTag("c")}`;
    // A flex layout Outlook on Windows does not render, and no link.
    await server.send({ to: inbox.address, subject, html: '<div style="display:flex">hello</div>' });
    const message = await mailstop.messages.waitFor(inbox.id, { subject_contains: subject }, { timeoutMs: 30_000 });
    const checks = await mailstop.messages.checks(message.id);
    expect(checks).toMatchObject({ message_id: message.id, html: { status: "warnings" }, links: { status: "not_checked" }, spam: { status: "not_configured" } });
    expect(checks.authentication?.status).toBe("none");
    const links = await mailstop.messages.checkLinks(message.id);
    expect(links).toMatchObject({ status: "ok", results: [], checked_at: expect.any(String) });
    expect((await mailstop.messages.checks(message.id)).links).toEqual(links);
  });

  it("waitFor returns the matched message, and throws WaitTimeoutError with the server's hint on a timeout", async () => {
    const mailstop = sdk();
    const inbox = await server.createInbox();
    const subject = `Welcome ${uniqueTag("w")}`;
    const waiting = mailstop.messages.waitFor(inbox.id, { subject_contains: subject }, { timeoutMs: 30_000 });
    await server.send({ to: inbox.address, subject, text: "hello" });
    expect((await waiting).subject).toBe(subject);

    const timeout = await mailstop.messages.waitFor(inbox.id, { subject_contains: "never sent" }, { timeoutMs: 300 }).catch((cause: unknown) => cause);
    expect(timeout).toBeInstanceOf(WaitTimeoutError);
    const error = timeout as WaitTimeoutError;
    expect(error.hint).toEqual(expect.any(String));
    expect(error.hint).not.toBe("");
    expect(error.message).toContain(error.hint);
    expect(error.waitedMs).toBeGreaterThanOrEqual(300);
    expect(error.non_matching_arrivals).toBe(0);
    expect(error.inbox).toBe(inbox.address);
    expect(error.result.status).toBe("timeout");

    // A missing inbox is an error, never a timeout.
    expect((await failure(mailstop.messages.waitFor("ibx_00000000000000000000000000", {}, { timeoutMs: 300 }))).code).toBe("inbox_not_found");
  });
});

describe("capture inboxes", () => {
  it("names the capture inbox of a recipient (captureAddressOf), where a wait finds the mail sent to it through the relay", async () => {
    const recipient = `New.User+${uniqueTag("c").replace(/\./g, "-")}@Example.com`;
    const mailstop = sdk();
    const address = await mailstop.inboxes.captureAddressOf(recipient);
    expect(address.startsWith(`${server.project.projectKey}.${captureTagOf(recipient)}@`)).toBe(true);
    // The relay's inbox made ahead (as the fixture does), so the wait can begin before the mail.
    expect((await mailstop.inboxes.create({ tag: captureTagOf(recipient)! })).address).toBe(address);
    const subject = `captured ${uniqueTag("s")}`;
    await defaultSmtpTransport(server.smtp!.capture, { user: server.project.smtp.username, pass: server.project.smtp.password }).sendMail({ from: "app@example.com", to: recipient, subject, text: "x" });
    expect((await mailstop.messages.waitFor(address, { subject_contains: subject }, { timeoutMs: 30_000 })).subject).toBe(subject);
  });

  it("refuses an address that cannot name one, before any call", async () => {
    await expect(new Mailstop({ baseUrl: "http://127.0.0.1:9", apiKey: "is_test_x" }).inboxes.captureAddressOf("no-at-sign")).rejects.toThrow(RangeError);
  });
});

describe("retries", () => {
  it("retries a wait refused with 429 concurrency_limit after retry_after_seconds, and succeeds once a slot is free", async () => {
    const limited = await server.bootstrap();
    const patched = await server.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: limited.projectId } }, body: { limits: { max_concurrent_waits: 1 } } });
    expect(patched.response.status).toBe(200);
    const inbox = await server.createInbox({ tag: uniqueTag("slots") }, limited);
    const holder = new AbortController();
    const probing = new Mailstop({ baseUrl: server.url, apiKey: limited.apiKey, maxAttempts: 1 });
    // Retried itself should a probe below take the slot first.
    const held = new Mailstop({ baseUrl: server.url, apiKey: limited.apiKey, maxAttempts: 30 }).messages
      .wait({ inbox: inbox.id, match: { subject_contains: "never" }, timeout_ms: 60_000 }, { signal: holder.signal })
      .catch(() => null);
    try {
      // The slot is held once a one-attempt wait is refused.
      await eventually(
        async () => {
          const refused = await probing.messages.wait({ inbox: inbox.id, timeout_ms: 10 }).then(
            () => null,
            (error: MailstopError) => (error.code === "concurrency_limit" ? error : null),
          );
          return refused;
        },
        { what: "the held slot", timeoutMs: 30_000 },
      );
      // Every attempt of the retried wait, as it went out and came back.
      const attempts: Array<{ at: number; status: number }> = [];
      const retrying = new Mailstop({
        baseUrl: server.url,
        apiKey: limited.apiKey,
        maxAttempts: 30,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          attempts.push({ at: Date.now(), status: response.status });
          // The first refusal frees the slot: a later attempt is admitted.
          if (response.status === 429) holder.abort();
          return response;
        },
      });
      const result = await retrying.messages.wait({ inbox: inbox.id, match: { subject_contains: "never" }, timeout_ms: 50 });
      expect(result.status).toBe("timeout");
      expect(attempts[0]?.status).toBe(429);
      expect(attempts.at(-1)?.status).toBe(200);
      // Each retry waited the server's retry_after_seconds (1) after the refusal before it.
      for (let i = 1; i < attempts.length; i++) expect(attempts[i]!.at - attempts[i - 1]!.at).toBeGreaterThanOrEqual(950);
    } finally {
      holder.abort();
      await held;
    }
  });
});

describe("the event stream", () => {
  it("yields message frames, resumes with Last-Event-ID after the server closes the stream (max_duration) without a gap or a duplicate, and closes on break", async () => {
    const inbox = await server.createInbox();
    const sent: string[] = [];
    const sendOne = async () => {
      const subject = `s${sent.length}`;
      sent.push(subject);
      await server.deliver(inbox, { subject, text: "x" });
    };
    // Each connection the SDK opens: the Last-Event-ID it resumed from and its signal.
    const connections: Array<{ lastEventId: string | null; signal: AbortSignal | undefined }> = [];
    const mailstop = sdk({
      fetch: async (input, init) => {
        connections.push({ lastEventId: new Headers(init?.headers).get("last-event-id"), signal: init?.signal ?? undefined });
        // A message that arrives while the SDK is disconnected: sent before the reconnect goes out.
        if (connections.length === 2) await sendOne();
        return fetch(input, init);
      },
    });
    const received: Array<{ subject: string; cursor: string }> = [];
    const stream = mailstop.stream(inbox.id);
    let last = "";
    const consuming = (async () => {
      for await (const message of stream) {
        received.push({ subject: message.subject, cursor: message.cursor });
        if (message.subject === last) break;
      }
    })();
    const heard = (subject: string) => eventually(async () => received.find((m) => m.subject === subject), { what: subject, timeoutMs: 20_000 });
    const deadline = Date.now() + (MAX_DURATION_S + 20) * 1000;
    // Mail arrives, each heard before the next, until the server has closed the first connection and the SDK resumed.
    while (connections.length < 2) {
      if (Date.now() > deadline) throw new Error("the stream was not closed and resumed");
      await sendOne();
      await heard(sent.at(-1)!);
    }
    await heard(sent.at(-1)!);
    last = "the-last";
    sent.push(last);
    await server.deliver(inbox, { subject: last, text: "x" });
    await consuming;

    // Every message once: none missing (the one sent while disconnected included), none repeated.
    expect(received.map((m) => m.subject).sort()).toEqual([...sent].sort());
    expect(received).toHaveLength(sent.length);
    // The resume started after a cursor heard on the first connection.
    expect(connections[0]!.lastEventId).toBeNull();
    expect(received.map((m) => m.cursor)).toContain(connections[1]!.lastEventId);
    // break closed the connection.
    expect(connections.at(-1)!.signal?.aborted).toBe(true);
  });

  it("resumes after the connection drops (cut by a proxy), with the message stored meanwhile", async () => {
    const inbox = await server.createInbox();
    const proxy = await startTcpProxy(Number(new URL(server.url).port));
    try {
      const mailstop = sdk({ baseUrl: `http://127.0.0.1:${proxy.port}` });
      const received: string[] = [];
      const consuming = (async () => {
        for await (const message of mailstop.stream(inbox.id, { maxReconnects: 20 })) {
          received.push(message.subject);
          if (message.subject === "after") break;
        }
      })();
      const heard = (subject: string, timeoutMs = 20_000) => eventually(async () => received.includes(subject) || null, { what: subject, timeoutMs });
      // Mail until the stream hears one: it is open by then (a fresh stream takes only new arrivals).
      const before: string[] = [];
      for (;;) {
        before.push(`before-${before.length}`);
        await server.deliver(inbox, { subject: before.at(-1)!, text: "x" });
        if (await heard(before.at(-1)!, 2_000).catch(() => false)) break;
      }
      proxy.sever();
      await server.deliver(inbox, { subject: "during", text: "x" });
      proxy.mend();
      await heard("during");
      await server.deliver(inbox, { subject: "after", text: "x" });
      await consuming;
      // What the stream heard before the cut (the last one at least), then the rest, each once.
      expect(received.slice(-3)).toEqual([before.at(-1), "during", "after"]);
      expect(new Set(received).size).toBe(received.length);
    } finally {
      await proxy.close();
    }
  });

  it("resumes a stream of an earlier consumer from its lastEventId, without repeating what it saw", async () => {
    const inbox = await server.createInbox();
    const mailstop = sdk();
    const first = mailstop.stream(inbox.id);
    // Mail until the first consumer hears one (its stream is open by then), then it stops.
    const next = first.next();
    let seen: IteratorResult<StreamMessage, void> | undefined;
    void next.then((result) => (seen = result));
    for (let n = 0; seen === undefined; n++) {
      await server.deliver(inbox, { subject: `first-${n}`, text: "x" });
      await eventually(async () => seen ?? null, { what: "the first message", timeoutMs: 2_000 }).catch(() => undefined);
    }
    await first.return();
    if (seen.done === true) throw new Error("the stream ended");
    const cursor = seen.value.cursor;
    await server.deliver(inbox, { subject: "while-away", text: "x" });
    const resumed: string[] = [];
    for await (const message of mailstop.stream(inbox.id, { lastEventId: cursor })) {
      resumed.push(message.subject);
      if (message.subject === "while-away") break;
    }
    // Everything after the cursor (later "first-…" deliveries included), never the message at it.
    expect(resumed).not.toContain(seen.value.subject);
    expect(resumed.at(-1)).toBe("while-away");
  });

  it("throws a refused stream's MailstopError", async () => {
    const stream = sdk().stream("ibx_00000000000000000000000000");
    expect((await failure(stream.next())).code).toBe("inbox_not_found");
  });
});

describe("domains", () => {
  it("covers create, list, get, verify (pending without DNS records) and delete", async () => {
    const mailstop = sdk();
    const name = uniqueDomain("sdk");
    const domain = await mailstop.domains.create(name);
    expect(domain).toMatchObject({ domain: name, status: "pending" });
    expect((await mailstop.domains.list()).data.map((d) => d.id)).toContain(domain.id);
    expect((await mailstop.domains.get(domain.id)).domain).toBe(name);
    const checked = await mailstop.domains.verify(domain.id);
    expect(checked.status).toBe("pending");
    expect(checked.last_check?.ok).toBe(false);
    expect((await failure(mailstop.domains.create(name))).code).toBe("conflict");
    expect(await mailstop.domains.delete(domain.id)).toMatchObject({ id: domain.id, deleted: true });
    expect((await failure(mailstop.domains.get(domain.id))).code).toBe("domain_not_found");
  });
});

describe("usage, audit, compliance and meta", () => {
  it("reads usage and the audit trail of a change", async () => {
    const mailstop = sdk();
    const inbox = await server.createInbox();
    expect((await mailstop.usage.get()).metrics).toEqual(expect.any(Array));
    const events = await mailstop.audit.list({ action: "inbox.created", limit: 200 });
    expect(events.data.some((event) => JSON.stringify(event).includes(inbox.id))).toBe(true);
  });

  it("reads retention and erases an address's messages", async () => {
    const mailstop = sdk();
    expect((await mailstop.compliance.retention()).default_retention_seconds).toBeGreaterThan(0);
    const inbox = await server.createInbox();
    const sender = `${uniqueRunId("subject")}@acme.example`;
    await server.deliver(inbox, { from: sender, subject: "to erase", text: "x" });
    expect(await mailstop.compliance.erase(sender)).toMatchObject({ address: sender, messages_erased: 1 });
  });

  it("checks the key and reads the unauthenticated routes", async () => {
    const mailstop = sdk();
    expect((await mailstop.meta.checkAuth({ project_id: server.project.projectId })).project.id).toBe(server.project.projectId);
    expect((await failure(mailstop.meta.checkAuth({ project_id: "prj_other" }))).code).toBe("forbidden");
    const anonymous = new Mailstop({ baseUrl: server.url });
    expect((await anonymous.meta.health()).status).toBe("ok");
    expect(Object.keys((await anonymous.meta.openApi()).paths as object)).toContain("/v1/messages/wait");
    expect(await anonymous.meta.docs()).toContain("<html");
    expect((await anonymous.meta.abuse()).outbound_delivery).toBe("none");
    const articles = await anonymous.meta.articles();
    expect(articles.data).toEqual(expect.any(Array));
    const first = articles.data[0];
    if (first !== undefined) expect((await anonymous.meta.article(first.slug)).slug).toBe(first.slug);
    expect((await failure(anonymous.meta.article("no-such-article"))).code).toBe("article_not_found");
  });
});
