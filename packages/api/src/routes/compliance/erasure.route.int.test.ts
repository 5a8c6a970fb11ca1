import { createHash } from "node:crypto";
import { expectError, uniqueTag, useTestServer } from "@mailstop/testkit";

// POST /v1/erasure: every message of the project from or to an address goes at once (envelope
// sender or recipient, From, To or Cc, case-insensitively), in every inbox; nothing else does.

const server = useTestServer({ mail: true });

const erase = (body: unknown, apiKey?: string | null) => server.request("POST", "/v1/erasure", { body, ...(apiKey === undefined ? {} : { apiKey }) });
const BAD_REQUEST = { status: 400, code: "invalid_request", retryable: false } as const;

/** A subject no other test uses. */
const subject = (what: string) => `${what} ${uniqueTag("erase")}`;

describe("POST /v1/erasure", () => {
  describe("200", () => {
    it("erases by envelope sender, From, To and Cc, case-insensitively, in every inbox; leaves the rest; gone from get, list and wait at once", async () => {
      const person = `${uniqueTag("alice").replace(/\./g, "-")}@Example.com`;
      const [inbox, second] = [await server.createInbox(), await server.createInbox()];
      const erased = [
        await server.deliver(inbox, { subject: subject("from header"), from: `"Alice" <${person.toUpperCase()}>`, text: "a" }),
        await server.deliver(inbox, { subject: subject("envelope sender"), from: "noreply@acme.example", envelope: { from: person, to: [inbox.address] }, text: "b" }),
        await server.deliver(second, { subject: subject("to header"), from: "noreply@acme.example", to: [second.address, person], envelope: { from: "noreply@acme.example", to: [second.address] }, text: "c" }),
        await server.deliver(inbox, { subject: subject("cc header"), from: "noreply@acme.example", cc: person.toLowerCase(), envelope: { from: "noreply@acme.example", to: [inbox.address] }, text: "d" }),
      ];
      const kept = [
        await server.deliver(inbox, { subject: subject("someone else"), from: "bob@example.com", text: "e" }),
        // A longer address containing it is another address.
        await server.deliver(inbox, { subject: subject("lookalike"), from: `x${person}`, text: "f" }),
      ];
      const elsewhere = await server.bootstrap();
      const theirInbox = await server.createInbox({}, elsewhere);
      const theirs = await server.deliver(theirInbox, { subject: subject("their copy"), from: person, text: "g" });

      const storedBytes = async () => (await server.request("GET", "/v1/usage")).json.metrics.find((m: { metric: string }) => m.metric === "storage.bytes").used as number;
      const sizes = await server.db.selectFrom("messages").select("size").where("id", "in", erased.map((message) => message.id)).execute();
      const bytesBefore = await storedBytes();

      const { status, json } = await erase({ address: person });
      expect(status).toBe(200);
      expect(json).toEqual({ address: person.toLowerCase(), messages_erased: 4, erased_at: expect.any(String) });
      // The storage meter drops at once by the erased copies' sizes.
      expect(await storedBytes()).toBe(bytesBefore - sizes.reduce((sum, row) => sum + row.size, 0));

      for (const message of erased) expectError(await server.request("GET", `/v1/messages/${message.id}`), { status: 404, code: "message_not_found", retryable: false });
      for (const message of kept) expect((await server.request("GET", `/v1/messages/${message.id}`)).status).toBe(200);
      const listed = await server.request("GET", `/v1/messages?inbox=${inbox.id}&limit=100`);
      expect(listed.json.data.map((message: { id: string }) => message.id).sort()).toEqual(kept.map((message) => message.id).sort());
      expect((await server.request("GET", `/v1/messages?inbox=${second.id}`)).json.data).toEqual([]);
      const waited = await server.request("POST", "/v1/messages/wait", { body: { inbox: inbox.id, match: { subject_contains: erased[0]!.subject }, timeout_ms: 300 } });
      expect(waited.json.status).toBe("timeout");
      expect((await server.request("GET", `/v1/inboxes/${inbox.id}`)).json.message_count).toBe(2);
      // Another project's message from the same address is untouched.
      expect((await server.request("GET", `/v1/messages/${theirs.id}`, { apiKey: elsewhere.apiKey })).status).toBe(200);

      // Tombstoned, as DELETE /v1/messages/{id} does: the reaper removes rows and bytes later.
      const rows = await server.db.selectFrom("messages").select(["id", "deleted_at"]).where("id", "in", [...erased, ...kept].map((message) => message.id)).execute();
      const tombstoned = new Set(rows.filter((row) => row.deleted_at !== null).map((row) => row.id));
      expect(tombstoned).toEqual(new Set(erased.map((message) => message.id)));
    });

    it("is audited once as messages.erased with the count and a SHA-256 of the lower-cased address, never the address", async () => {
      const owner = await server.bootstrap();
      const inbox = await server.createInbox({}, owner);
      const person = `${uniqueTag("subject").replace(/\./g, "-")}@example.org`;
      await server.deliver(inbox, { subject: subject("one"), from: person, text: "x" });
      const response = await erase({ address: person.toUpperCase() }, owner.apiKey);
      expect(response.json.messages_erased).toBe(1);
      // Nothing left: a second erasure erases nothing, and is recorded too (the request was served).
      expect((await erase({ address: person }, owner.apiKey)).json.messages_erased).toBe(0);

      const { json } = await server.request("GET", "/v1/audit-events?action=messages.erased", { apiKey: owner.apiKey });
      const digest = createHash("sha256").update(person.toLowerCase()).digest("hex");
      expect(json.data).toEqual([
        expect.objectContaining({ details: { address_sha256: digest, messages_erased: 0, capture_inboxes_deleted: 0 } }),
        {
          id: expect.stringMatching(/^evt_/),
          at: expect.any(String),
          actor: { type: "api_key", id: owner.apiKeyId },
          action: "messages.erased",
          target: { type: "project", id: owner.projectId },
          request_id: response.headers.get("x-request-id"),
          details: { address_sha256: digest, messages_erased: 1, capture_inboxes_deleted: 0 },
        },
      ]);
      expect(JSON.stringify(json).toLowerCase()).not.toContain(person.split("@")[0]);
    });

    it("erases mail to an inbox's own address (its envelope recipient)", async () => {
      const inbox = await server.createInbox();
      await server.deliver(inbox, { subject: subject("to the inbox"), text: "x" });
      await server.deliver(inbox, { subject: subject("again"), text: "y" });
      expect((await erase({ address: inbox.address })).json.messages_erased).toBe(2);
      expect((await server.request("GET", `/v1/messages?inbox=${inbox.id}`)).json.data).toEqual([]);
      // The inbox stays.
      expect((await server.request("GET", `/v1/inboxes/${inbox.id}`)).status).toBe(200);
    });
  });

  describe("400", () => {
    it.each([
      ["not an address", { address: "not-an-address" }],
      ["an inbox id", { address: "ibx_01jd00000000000000000000000" }],
      ["an empty address", { address: "" }],
      ["no address", {}],
      ["an unknown property", { address: "a@example.com", inbox: "x" }],
    ])("refuses %s with invalid_request", async (_what, body) => {
      expectError(await erase(body), BAD_REQUEST);
    });
  });

  describe("401 and 403", () => {
    it("needs a key, and the scope messages:delete", async () => {
      expectError(await erase({ address: "a@example.com" }, null), { status: 401, code: "unauthenticated", retryable: false });
      const reader = await server.bootstrap({ scopes: ["messages:read", "inboxes:read"] });
      expectError(await erase({ address: "a@example.com" }, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
    });
  });
});
