import { Mailstop } from "@mailstop/sdk/source";
import {
  type TestDns,
  type TestReceiver,
  eventually,
  startTestDns,
  startTestReceiver,
  uniqueDomain,
  uniqueTag,
  useOwnDatabase,
  useTestServer,
} from "@mailstop/testkit";
import { type Run, runClient } from "./run-cli.fixture";

// `mailstop inboxes|messages|domains|webhooks` as a shell sees them: the binary spawned against a
// real mailstop (both worlds), configured by MAILSTOP_API_URL and MAILSTOP_API_KEY. Spawns that
// do not depend on each other run in parallel: each costs a node start.

let dns: TestDns;
let receiver: TestReceiver;
beforeAll(async () => {
  [dns, receiver] = await Promise.all([startTestDns(), startTestReceiver("127.0.0.2")]);
});
// mail: true: SMTP delivery for messages, and the parser target that delivers webhooks. The test
// DNS answers domain verification; the allow list admits the receiver's address.
const server = useTestServer(async () => ({
  mail: true,
  env: { ...(await ownDatabase.env()), MAILSTOP_DNS_SERVERS: dns.server, MAILSTOP_WEBHOOK_ALLOW_NETWORKS: "127.0.0.2/32" },
}));
// A database of its own in the integration world: every parser on a database delivers its
// webhook events, so another suite's server could take (and, stopping, strand) this one's.
const ownDatabase = useOwnDatabase("mailstop_cli_resources");
afterAll(async () => {
  await Promise.all([receiver?.stop(), dns?.stop()]);
});

/** `mailstop …args` with only the server's URL and key from the environment; never rejects. */
const mailstop = (...args: string[]): Promise<Run> => runClient(server, args);

/** The stdout of a run that must succeed with nothing on stderr. */
function ok(run: Run): string {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  return run.stdout;
}

/** The parsed stdout of a successful `--json` run. */
function json<T = Record<string, unknown>>(run: Run): T {
  return JSON.parse(ok(run)) as T;
}

describe("mailstop inboxes", () => {
  it("creates, lists, shows and deletes an inbox; an unknown one exits 1 naming inbox_not_found", async () => {
    const tag = uniqueTag("cli");
    const created = json<{ id: string; address: string; tag: string; retention_seconds: number }>(await mailstop("inboxes", "create", "--tag", tag, "--retention", "2h", "--json"));
    expect(created).toMatchObject({ id: expect.stringMatching(/^ibx_/), tag, retention_seconds: 7200 });

    const [list, byAddress, again] = await Promise.all([
      mailstop("inboxes", "list", "--limit", "200", "--json"),
      mailstop("inboxes", "get", created.address),
      mailstop("inboxes", "create", "--tag", tag),
    ]);
    expect(json<{ data: { id: string }[] }>(list).data.map((inbox) => inbox.id)).toContain(created.id);
    expect(ok(byAddress)).toBe(`${created.id}  ${created.address}  0 messages  ${tag}\n`);
    expect(ok(again)).toBe(ok(byAddress)); // the same tag is the same inbox

    expect(ok(await mailstop("inboxes", "delete", created.id))).toBe(`deleted ${created.id} (0 messages)\n`);
    const [gone, goneJson] = await Promise.all([mailstop("inboxes", "get", created.id), mailstop("inboxes", "get", created.id, "--json")]);
    expect(gone).toMatchObject({ code: 1, stdout: "" });
    expect(gone.stderr).toMatch(/^mailstop: inbox_not_found: .+ \(request req_\w+\)\n$/);
    expect(goneJson).toMatchObject({ code: 1, stdout: "" });
    expect(JSON.parse(goneJson.stderr)).toMatchObject({ error: { code: "inbox_not_found", retryable: false, request_id: expect.stringMatching(/^req_/) } });
  });
});

describe("mailstop messages", () => {
  it("lists an inbox's messages with match flags, prints a body part, deletes a message; an unknown inbox exits 1", async () => {
    const inbox = await server.createInbox();
    const subject = `Your code ${uniqueTag("m")}`;
    const other = await server.deliver(inbox, { subject: "Welcome aboard", text: "Hello there" });
    const coded = await server.deliver(inbox, { subject, text: "Your verification code is 482913", html: "<p>Your code is <b>482913</b></p>" });

    const [matched, all, text, html, view, unknown] = await Promise.all([
      mailstop("messages", "list", "--inbox", inbox.address, "--subject-contains", subject, "--json"),
      mailstop("messages", "list", "--inbox", inbox.id, "--limit", "10"),
      mailstop("messages", "get", coded.id),
      mailstop("messages", "get", coded.id, "--format", "html"),
      mailstop("messages", "get", coded.id, "--json"),
      mailstop("messages", "list", "--inbox", "ibx_00000000000000000000000000"),
    ]);
    expect(json<{ data: { id: string }[] }>(matched).data.map((message) => message.id)).toEqual([coded.id]);
    const listed = ok(all).trimEnd().split("\n");
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatch(new RegExp(`^${coded.id}  \\S+  noreply@acme\\.example  ${subject}$`));
    expect(listed[1]).toMatch(new RegExp(`^${other.id}  `));
    expect(ok(text)).toContain("Your verification code is 482913");
    expect(ok(html)).toContain("<b>482913</b>");
    expect(json(view)).toMatchObject({ id: coded.id, subject, codes: ["482913"], inbox_id: inbox.id });
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toMatch(/^mailstop: inbox_not_found: /);

    expect(json(await mailstop("messages", "delete", coded.id, "--json"))).toEqual({ id: coded.id, erased: true });
    const [after, gone] = await Promise.all([mailstop("messages", "list", "--inbox", inbox.id, "--json"), mailstop("messages", "get", coded.id)]);
    expect(json<{ data: { id: string }[] }>(after).data.map((message) => message.id)).toEqual([other.id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^mailstop: message_not_found: /);
  });
});

describe("mailstop domains", () => {
  it("claims a domain printing its DNS records, verifies it (pending, then verified once they are published), lists and releases it", async () => {
    const name = uniqueDomain("cli");
    const created = ok(await mailstop("domains", "create", name));
    const [first, ...records] = created.trimEnd().split("\n");
    const id = /^(dom_\w+)  /.exec(first ?? "")?.[1] ?? "";
    expect(first).toBe(`${id}  ${name}  pending`);
    const domain = await new Mailstop({ baseUrl: server.url, apiKey: server.apiKey }).domains.get(id);
    expect(records).toEqual([
      `publish these DNS records, then run: mailstop domains verify ${id}`,
      `  TXT  _mailstop-verification.${name}  mailstop-verification=${domain.verification_token}`,
      `  MX  ${name}  ${server.config.mxHost}  priority 10`,
    ]);

    const [list, shown, pending] = await Promise.all([mailstop("domains", "list", "--json"), mailstop("domains", "get", id, "--json"), mailstop("domains", "verify", id)]);
    expect(json<{ data: { id: string }[] }>(list).data.map((d) => d.id)).toContain(id);
    expect(json(shown)).toMatchObject({ id, domain: name, status: "pending", dns_records: domain.dns_records });
    // Records not published yet: verify answers the domain still pending (exit 0), saying what is missing.
    expect(ok(pending)).toMatch(new RegExp(`^${id}  ${name}  pending\\n[^]*\\nlast check: missing txt, mx: `));

    dns.set(`_mailstop-verification.${name}`, { txt: [`mailstop-verification=${domain.verification_token}`] });
    dns.set(name, { mx: [{ exchange: server.config.mxHost, priority: 10 }] });
    expect(json(await mailstop("domains", "verify", id, "--json"))).toMatchObject({ id, status: "verified", last_check: { ok: true, missing: [] } });

    expect(ok(await mailstop("domains", "delete", id))).toBe(`deleted ${id}\n`);
    const gone = await mailstop("domains", "get", id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^mailstop: domain_not_found: /);
  });
});

describe("mailstop webhooks", () => {
  it("registers an endpoint showing its secret, lists, updates, rotates, tests it, reads its attempts and deletes it", async () => {
    const url = `${receiver.origin}/hook`;
    const created = ok(await mailstop("webhooks", "create", "--url", url, "--events", "message.received,domain.verified", "--description", "cli"));
    const [line, secretLine] = created.trimEnd().split("\n");
    const id = /^(whk_\w+)  /.exec(line ?? "")?.[1] ?? "";
    expect(line).toBe(`${id}  enabled  ${url}  message.received,domain.verified`);
    expect(secretLine).toMatch(/^secret \(shown once, keep it\): whsec_\S+$/);

    const [list, shown, updated, rotated, queued] = await Promise.all([
      mailstop("webhooks", "list", "--json"),
      mailstop("webhooks", "get", id),
      mailstop("webhooks", "update", id, "--events", "message.received", "--enabled", "false", "--description", "renamed", "--json"),
      mailstop("webhooks", "rotate-secret", id, "--json"),
      mailstop("webhooks", "test", id, "--json"),
    ]);
    expect(json<{ data: { id: string }[] }>(list).data.map((w) => w.id)).toContain(id);
    expect(ok(shown)).toMatch(new RegExp(`^${id}  (enabled|disabled)  ${url}  `));
    expect(json(updated)).toMatchObject({ id, events: ["message.received"], enabled: false, description: "renamed" });
    const { secret } = json<{ secret: string }>(rotated);
    expect(secret).toMatch(/^whsec_/);
    expect(secretLine).not.toContain(secret);
    const { event_id } = json<{ event_id: string }>(queued);
    expect(event_id).toMatch(/^whe_/);

    // The parser delivers the test event (a disabled endpoint can be tested) and logs the attempt.
    const sdk = new Mailstop({ baseUrl: server.url, apiKey: server.apiKey });
    await receiver.waitFor(1, 30_000);
    await eventually(async () => ((await sdk.webhooks.attempts(id)).data.some((attempt) => attempt.event_id === event_id) ? true : null), { what: "the test event's attempt", timeoutMs: 30_000 });
    const [attempts, attemptsJson] = await Promise.all([mailstop("webhooks", "attempts", id), mailstop("webhooks", "attempts", id, "--json")]);
    expect(ok(attempts)).toMatch(/^wha_\w+  \S+  webhook\.test  attempt 1  succeeded  200$/m);
    expect(json<{ data: { event_id: string }[] }>(attemptsJson).data.map((attempt) => attempt.event_id)).toContain(event_id);

    expect(ok(await mailstop("webhooks", "delete", id))).toBe(`deleted ${id}\n`);
    const [gone, badUrl] = await Promise.all([mailstop("webhooks", "get", id), mailstop("webhooks", "create", "--url", "http://127.0.0.3/hook", "--events", "message.received", "--json")]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^mailstop: webhook_not_found: /);
    // Outside the allow list: the API's 400, with its reason in the JSON error.
    expect(badUrl).toMatchObject({ code: 1, stdout: "" });
    expect(JSON.parse(badUrl.stderr)).toMatchObject({ error: { code: "invalid_request", details: { reason: "blocked_address" } } });
  });
});
