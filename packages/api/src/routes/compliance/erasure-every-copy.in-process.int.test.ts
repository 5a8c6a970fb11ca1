import { randomBytes } from "node:crypto";
import { copiesOf, defaultSmtpTransport, eventually, uniqueTag, useWebhookTestServer } from "@mailstop/testkit";

// Erasure reaches every copy (docs/decisions.md "Erasure reaches every copy"): after
// POST /v1/erasure and a reaper run, the address is nowhere in the database (every table,
// every column), the object store's files, the server's Redis keys or its log, compared
// case-insensitively; and no webhook retry carries it. The copies are made first and the
// search is shown to find each of them, so the test fails when any one survives. In-process
// only (not in the fleet world): it reads the server's own database, object store files, Redis
// keys and log.

const { server, receiver } = useWebhookTestServer("mailstop_erasure", {
  // A failed first attempt is retried an hour later: pending, with its rendered body stored.
  MAILSTOP_WEBHOOK_RETRY_SCHEDULE: "3600",
  MAILSTOP_REAP_INTERVAL_S: "1",
});

describe("erasure reaches every copy", () => {
  it("leaves the address in no table, object, Redis key, log line or webhook retry; the rest stays", async () => {
    const person = `John.Doe-${randomBytes(4).toString("hex")}@Customer.example`;
    const delivered = await receiver();
    const failing = await receiver();
    // The failing receiver echoes what it was sent: its answer lands in the attempt log.
    failing.answer((request) => ({ status: 500, body: request.body }));
    const hook = async (url: string) => {
      const { status, json } = await server.request("POST", "/v1/webhooks", { body: { url, events: ["message.received", "message.captured"] } });
      expect(status).toBe(201);
      return json.id as string;
    };
    const failingHook = await hook(`${failing.origin}/hook`);
    await hook(`${delivered.origin}/hook`);

    // A received message from the person, one captured for them, and one that stays.
    const inbox = await server.createInbox({ tag: uniqueTag("erase-all") });
    // Its link names the person: the link check stores the URL with the message's checks.
    const site = await receiver();
    const link = `${site.origin}/confirm?email=${person}`;
    const received = await server.deliver(inbox, { subject: `Hello ${uniqueTag("s")}`, from: `"John Doe" <${person}>`, text: `Your code is 482913. Reply to ${person}. Confirm: ${link}` });
    const kept = await server.deliver(inbox, { subject: `Unrelated ${uniqueTag("k")}`, from: "bob@example.com", text: "nothing personal" });
    const relay = defaultSmtpTransport(server.smtp!.capture, { user: server.project.smtp.username, pass: server.project.smtp.password });
    await relay.sendMail({ from: "app@acme.example", to: person, subject: `Welcome ${uniqueTag("c")}`, text: `Dear ${person}, welcome.` });
    const captureInbox = await eventually(
      async () => (await server.request("GET", "/v1/inboxes?tag_prefix=capture.customer.example")).json.data.find((i: { labels: { recipient?: string } }) => i.labels.recipient?.toLowerCase() === person.toLowerCase()) as { id: string } | undefined,
      { what: "the capture inbox" },
    );
    // Each endpoint has taken the three events once; the failing one's are pending an hour away.
    await delivered.waitFor(3);
    await failing.waitFor(3);
    await eventually(async () => ((await server.request("GET", `/v1/webhooks/${failingHook}/attempts`)).json.data.length === 3 ? true : null), { what: "three logged attempts" });

    const checked = await server.request("POST", `/v1/messages/${received.id}/checks/links`);
    expect(checked.json).toMatchObject({ status: "ok", results: [{ url: link, ok: true }] });

    // The search finds every kind of copy before the erasure.
    const before = (await copiesOf(server, person)).join("\n");
    for (const where of ["table messages.checks", "table messages.", "table inboxes.", "table webhook_deliveries.body", "table webhook_attempts.response_body", "table accepted_transactions.", "object "]) {
      expect(before).toContain(where);
    }

    const { status, json } = await server.request("POST", "/v1/erasure", { body: { address: person.toUpperCase() } });
    expect(status).toBe(200);
    expect(json.messages_erased).toBe(2);

    // The erased messages' pending retries are dropped at once, unsent: nothing more reaches
    // the receiver (the kept message's retry stays an hour away).
    const dropped = await eventually(
      async () => {
        const attempts = (await server.request("GET", `/v1/webhooks/${failingHook}/attempts`)).json.data as Array<{ error: string | null; response_body: string | null }>;
        return attempts.filter((attempt) => attempt.error === "message_gone").length === 2 ? attempts : null;
      },
      { what: "both pending deliveries dropped" },
    );
    expect(failing.received).toHaveLength(3);
    expect(dropped.every((attempt) => !(attempt.response_body ?? "").toLowerCase().includes(person.toLowerCase()))).toBe(true);

    // Once the reaper has run, no copy is left anywhere.
    let left: string[] = [];
    await eventually(
      async () => {
        left = await copiesOf(server, person);
        return left.length === 0 ? true : null;
      },
      { timeoutMs: 30_000, what: "no copy of the address left" },
    ).catch(() => undefined);
    expect(left).toEqual([]);

    expect((await server.request("GET", `/v1/inboxes/${captureInbox.id}`)).status).toBe(404);
    expect((await server.request("GET", `/v1/messages/${received.id}`)).status).toBe(404);
    expect((await server.request("GET", `/v1/messages/${kept.id}`)).status).toBe(200);
    expect((await server.request("GET", `/v1/inboxes/${inbox.id}`)).json.message_count).toBe(1);
  });
});
