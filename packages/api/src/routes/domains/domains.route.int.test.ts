import {
  SmtpDialogue,
  type TestDns,
  type TestProject,
  type TestServer,
  expectError,
  keyRequest,
  smtpTransport,
  startTestDns,
  startTestServer,
  uniqueDomain,
  uniqueTag,
} from "@mailstop/testkit";

let dns: TestDns;
let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  dns = await startTestDns();
  server = await startTestServer({ mail: true, env: { MAILSTOP_DNS_SERVERS: dns.server } });
  [project, other] = await Promise.all([server.bootstrap(), server.bootstrap()]);
});
afterAll(async () => {
  await server?.stop();
  await dns?.stop();
});

const call = (method: string, path: string, body?: unknown, apiKey = project.apiKey) => keyRequest(server.url, apiKey, method, path, body);

async function claim(domain: string, owner = project) {
  const response = await call("POST", "/v1/domains", { domain }, owner.apiKey);
  expect(response.status).toBe(201);
  return response.json as { id: string; domain: string; verification_token: string; status: string };
}

/** Publishes what the domain's view asks for: the ownership TXT and the MX. */
function publish(domain: { domain: string; verification_token: string }, overrides: { txt?: string[]; mx?: string[] } = {}) {
  dns.set(`_mailstop-verification.${domain.domain}`, { txt: overrides.txt ?? [`mailstop-verification=${domain.verification_token}`] });
  dns.set(domain.domain, { mx: (overrides.mx ?? [server.config.mxHost]).map((exchange) => ({ exchange, priority: 10 })) });
}

const verify = (id: string, owner = project) => call("POST", `/v1/domains/${id}/verify`, undefined, owner.apiKey);

async function verifiedDomain(prefix: string) {
  const domain = await claim(uniqueDomain(prefix));
  publish(domain);
  expect((await verify(domain.id)).json.status).toBe("verified");
  return domain;
}

describe("POST /v1/domains", () => {
  it("claims the domain, pending, with its token and the two records to publish", async () => {
    const name = uniqueDomain("new");
    const { status, json } = await call("POST", "/v1/domains", { domain: name.toUpperCase() });
    expect(status).toBe(201);
    expect(json).toEqual({
      id: expect.stringMatching(/^dom_[0-9a-z]{26}$/),
      domain: name,
      status: "pending",
      verification_token: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      dns_records: [
        { type: "TXT", name: `_mailstop-verification.${name}`, value: `mailstop-verification=${json.verification_token}` },
        { type: "MX", name, value: server.config.mxHost, priority: 10 },
      ],
      created_at: expect.any(String),
      verified_at: null,
      last_checked_at: null,
      last_check: null,
    });
  });

  it("stores an internationalised name IDNA-encoded, and drops a trailing dot", async () => {
    const parent = uniqueDomain("idn");
    expect((await claim(`Bücher.${parent}.`)).domain).toBe(`xn--bcher-kva.${parent}`);
  });

  it.each([
    ["a public suffix", "co.uk"],
    ["a private public suffix", "github.io"],
    ["a bare top-level name", "localhost"],
    ["the shared domain", "mailstop.test"],
    ["a name under the shared domain", "qa.mailstop.test"],
    ["the MX host", "mx.mailstop.test"],
    ["an IP address", "127.0.0.1"],
    ["a name with a space", "bad name.example.com"],
    ["a label ending in a hyphen", "bad-.example.com"],
    ["a name over 253 characters", `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.example.com`],
  ])("refuses %s with 400 invalid_request, claiming nothing", async (_what, domain) => {
    const error = expectError(await call("POST", "/v1/domains", { domain }), { status: 400, code: "invalid_request", retryable: false });
    expect(error.details?.errors).toEqual([expect.objectContaining({ path: "/domain" })]);
    const listed = await call("GET", "/v1/domains?limit=100");
    expect(listed.json.data.map((d: { domain: string }) => d.domain)).not.toContain(domain);
  });

  it("refuses a name another project (or this one) already claimed with 409 conflict", async () => {
    const name = uniqueDomain("taken");
    await claim(name);
    expectError(await call("POST", "/v1/domains", { domain: name }, other.apiKey), { status: 409, code: "conflict", retryable: false });
    expectError(await call("POST", "/v1/domains", { domain: name }), { status: 409, code: "conflict", retryable: false });
  });

  it("releases a claim still pending after 7 days to the next project that asks", async () => {
    const name = uniqueDomain("stale");
    const stale = await claim(name);
    await server.db.updateTable("domains").set({ created_at: new Date(Date.now() - 8 * 86_400_000) } as never).where("id", "=", stale.id).execute();
    const taken = await claim(name, other);
    expect(taken.id).not.toBe(stale.id);
    expectError(await call("GET", `/v1/domains/${stale.id}`), { status: 404, code: "domain_not_found", retryable: false });
  });

  it("never releases a verified claim, however old", async () => {
    const domain = await verifiedDomain("old");
    await server.db.updateTable("domains").set({ created_at: new Date(Date.now() - 30 * 86_400_000) } as never).where("id", "=", domain.id).execute();
    expectError(await call("POST", "/v1/domains", { domain: domain.domain }, other.apiKey), { status: 409, code: "conflict", retryable: false });
  });

  it("needs domains:write: a read-only key gets 403 insufficient_scope", async () => {
    const reader = await server.bootstrap({ scopes: ["domains:read"] });
    const error = expectError(await call("POST", "/v1/domains", { domain: uniqueDomain("scope") }, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
    expect(error.details).toEqual({ required_scope: "domains:write" });
    expect((await call("GET", "/v1/domains", undefined, reader.apiKey)).status).toBe(200);
  });
});

describe("POST /v1/domains/{id}/verify against a real DNS server", () => {
  it("leaves the domain pending and names both records while nothing is published", async () => {
    const domain = await claim(uniqueDomain("bare"));
    const { status, json } = await verify(domain.id);
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: "pending", verified_at: null, last_check: { ok: false, missing: ["txt", "mx"] } });
    expect(json.last_check.detail).toContain(`_mailstop-verification.${domain.domain}: no such record`);
    expect(new Date(json.last_checked_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("a wrong token is a missing TXT; an MX to another host is a missing MX", async () => {
    const domain = await claim(uniqueDomain("wrong"));
    publish(domain, { txt: ["mailstop-verification=someone-elses-token"], mx: ["mx.elsewhere.example"] });
    const { json } = await verify(domain.id);
    expect(json).toMatchObject({ status: "pending", last_check: { ok: false, missing: ["txt", "mx"] } });
    expect(json.last_check.detail).toContain("mx.elsewhere.example");
  });

  it("the TXT alone is not enough: MX missing keeps it pending", async () => {
    const domain = await claim(uniqueDomain("nomx"));
    publish(domain);
    dns.remove(domain.domain);
    expect((await verify(domain.id)).json).toMatchObject({ status: "pending", last_check: { ok: false, missing: ["mx"] } });
  });

  it("goes pending → verified once both records are published (MX host matched without case or trailing dot)", async () => {
    const domain = await claim(uniqueDomain("ok"));
    expect((await verify(domain.id)).json.status).toBe("pending");
    publish(domain, { mx: [`${server.config.mxHost.toUpperCase()}.`] });
    const { status, json } = await verify(domain.id);
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: "verified", last_check: { ok: true, missing: [] } });
    expect(new Date(json.verified_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await call("GET", `/v1/domains/${domain.id}`)).json).toEqual(json);
  });

  it("a verified domain stays verified without a new lookup, even once its records are gone", async () => {
    const domain = await verifiedDomain("kept");
    dns.remove(domain.domain);
    const asked = dns.questions().length;
    const { json } = await verify(domain.id);
    expect(json.status).toBe("verified");
    expect(dns.questions().length).toBe(asked);
  });

  it("a DNS server that never answers leaves the domain pending within the 5 s bound", async () => {
    const domain = await claim(uniqueDomain("silent"));
    dns.set(`_mailstop-verification.${domain.domain}`, { silent: true });
    dns.set(domain.domain, { silent: true });
    const { status, json } = await verify(domain.id);
    expect(status).toBe(200);
    expect(json).toMatchObject({ status: "pending", last_check: { ok: false, missing: ["txt", "mx"] } });
    expect(json.last_check.detail).toContain("no answer within 5 s");
  });

  it("another project's domain is 404 domain_not_found, as an unknown one", async () => {
    const domain = await claim(uniqueDomain("mine"));
    expectError(await verify(domain.id, other), { status: 404, code: "domain_not_found", retryable: false });
    expectError(await verify("dom_00000000000000000000000000"), { status: 404, code: "domain_not_found", retryable: false });
  });
});

describe("GET /v1/domains and GET /v1/domains/{id}", () => {
  it("lists the project's domains newest first, paged, and never another project's", async () => {
    const owner = await server.bootstrap();
    const names = [uniqueDomain("l1"), uniqueDomain("l2"), uniqueDomain("l3")];
    for (const name of names) await claim(name, owner);
    await claim(uniqueDomain("foreign"), other);
    const first = await call("GET", "/v1/domains?limit=2", undefined, owner.apiKey);
    expect(first.json.data.map((d: { domain: string }) => d.domain)).toEqual([names[2], names[1]]);
    expect(first.json.limit).toBe(2);
    const second = await call("GET", `/v1/domains?limit=2&cursor=${first.json.next_cursor}`, undefined, owner.apiKey);
    expect(second.json).toEqual({ data: [expect.objectContaining({ domain: names[0] })], limit: 2, next_cursor: null });
  });

  it("another project's domain is 404 domain_not_found", async () => {
    const domain = await claim(uniqueDomain("hidden"));
    expectError(await call("GET", `/v1/domains/${domain.id}`, undefined, other.apiKey), { status: 404, code: "domain_not_found", retryable: false });
  });
});

describe("inboxes on a domain", () => {
  it("a pending domain gives 409 domain_not_verified (retryable after 60 s) on create and for-run; verified, both create <tag>@<domain>", async () => {
    const domain = await claim(uniqueDomain("inbox"));
    const pending = expectError(await call("POST", "/v1/inboxes", { tag: "signup", domain: domain.domain }), { status: 409, code: "domain_not_verified", retryable: true });
    expect(pending.retry_after_seconds).toBe(60);
    expectError(await call("POST", "/v1/inboxes/for-run", { run_id: "run-1", domain: domain.domain }), { status: 409, code: "domain_not_verified", retryable: true });

    publish(domain);
    await verify(domain.id);
    const created = await call("POST", "/v1/inboxes", { tag: "signup", domain: domain.domain });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ address: `signup@${domain.domain}`, domain: domain.domain });
    const forRun = await call("POST", "/v1/inboxes/for-run", { run_id: "run-1", domain: domain.domain });
    expect(forRun.json.address).toMatch(new RegExp(`@${domain.domain.replace(/\./g, "\\.")}$`));
  });

  it("another project's verified domain is 404 domain_not_found", async () => {
    const domain = await verifiedDomain("theirs");
    expectError(await call("POST", "/v1/inboxes", { tag: "signup", domain: domain.domain }, other.apiKey), { status: 404, code: "domain_not_found", retryable: false });
  });
});

describe("mail on a custom domain, over SMTP", () => {
  async function rcpt(recipient: string) {
    const { dialogue } = await SmtpDialogue.open(server.smtp!.receiving);
    try {
      await dialogue.command("EHLO test.example");
      await dialogue.command("MAIL FROM:<s@x.test>");
      return await dialogue.command(`RCPT TO:<${recipient}>`);
    } finally {
      dialogue.close();
    }
  }

  it("mail to an inbox on the verified domain is stored and read back through the API", async () => {
    const domain = await verifiedDomain("mail");
    const inbox = (await call("POST", "/v1/inboxes", { tag: "welcome", domain: domain.domain })).json;
    const subject = `On ${domain.domain}`;
    await smtpTransport(server.smtp!.receiving).sendMail({ from: "app@example.net", to: inbox.address, subject, text: "Your code is 482913" });
    const waited = await call("POST", "/v1/messages/wait", { inbox: inbox.address, match: { subject_contains: subject }, timeout_ms: 30_000 });
    expect(waited.json).toMatchObject({ status: "matched", message: { subject, to: [{ address: inbox.address }] } });
  });

  it("refuses with 550 5.1.1 a pending domain, an unknown tag on a verified one, and a sim on a domain not verified", async () => {
    const pending = await claim(uniqueDomain("refused"));
    const verified = await verifiedDomain("sims");
    for (const recipient of [`signup@${pending.domain}`, `no-such-inbox@${verified.domain}`, `sim.hard-bounce@${pending.domain}`, `sim.greylist@${pending.domain}`]) {
      expect(await rcpt(recipient)).toEqual({ code: 550, text: expect.stringMatching(/^5\.1\.1 /) });
    }
  });

  it("rehearses a refusing sim on a verified domain without an inbox", async () => {
    const verified = await verifiedDomain("simok");
    expect(await rcpt(`sim.soft-bounce@${verified.domain}`)).toEqual({ code: 452, text: expect.stringMatching(/^4\.2\.2 /) });
  });
});

describe("DELETE /v1/domains/{id}", () => {
  it("is refused with 409 conflict while inboxes live on it, then releases the name", async () => {
    const domain = await verifiedDomain("del");
    const inbox = (await call("POST", "/v1/inboxes", { tag: "x", domain: domain.domain })).json;
    const refused = expectError(await call("DELETE", `/v1/domains/${domain.id}`), { status: 409, code: "conflict", retryable: false });
    expect(refused.details).toEqual({ domain_id: domain.id, inbox_count: 1 });

    expect((await call("DELETE", `/v1/inboxes/${inbox.id}`)).status).toBe(200);
    const deleted = await call("DELETE", `/v1/domains/${domain.id}`);
    expect(deleted).toMatchObject({ status: 200, json: { id: domain.id, deleted: true } });
    expectError(await call("GET", `/v1/domains/${domain.id}`), { status: 404, code: "domain_not_found", retryable: false });
    expect((await claim(domain.domain, other)).domain).toBe(domain.domain);
  });

  it("another project's domain is 404 domain_not_found and stays", async () => {
    const domain = await claim(uniqueDomain("keep"));
    expectError(await call("DELETE", `/v1/domains/${domain.id}`, undefined, other.apiKey), { status: 404, code: "domain_not_found", retryable: false });
    expect((await call("GET", `/v1/domains/${domain.id}`)).status).toBe(200);
  });
});
