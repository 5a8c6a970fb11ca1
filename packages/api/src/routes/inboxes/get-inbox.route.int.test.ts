import { randomBytes } from "node:crypto";
import { newId } from "@mailstop/core";
import { insertDomain } from "@mailstop/db";
import { expectError, uniqueTag, useTestServer } from "@mailstop/testkit";

const server = useTestServer();

const NOT_FOUND = { status: 404, code: "inbox_not_found", retryable: false } as const;

/** GET /v1/inboxes/{reference}, the reference URL-encoded (an address's `@` becomes %40). */
const getInbox = (reference: string, apiKey: string | null = server.apiKey) => server.request("GET", `/v1/inboxes/${encodeURIComponent(reference)}`, { apiKey });

describe("GET /v1/inboxes/{id}", () => {
  describe("200", () => {
    it("returns the inbox view by id", async () => {
      const inbox = await server.createInbox({ tag: uniqueTag("get"), labels: { suite: "get" }, retention_seconds: 3600 });
      const { data, error, response } = await server.project.client.GET("/v1/inboxes/{id}", { params: { path: { id: inbox.id } } });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual(inbox);
      expect(data).toEqual({
        id: inbox.id,
        address: `${server.project.projectKey}.${inbox.tag}@mailstop.test`,
        tag: inbox.tag,
        domain: null,
        labels: { suite: "get" },
        retention_seconds: 3600,
        expires_at: null,
        created_at: inbox.created_at,
        last_message_at: null,
        message_count: 0,
      });
    });

    it("returns the inbox by address, with the @ URL-encoded", async () => {
      const inbox = await server.createInbox({ tag: uniqueTag("get") });
      const { status, json } = await getInbox(inbox.address);
      expect(status).toBe(200);
      expect(json).toEqual(inbox);
    });

    it("returns the inbox by address written in upper case", async () => {
      const inbox = await server.createInbox({ tag: uniqueTag("get") });
      const { status, json } = await getInbox(inbox.address.toUpperCase());
      expect(status).toBe(200);
      expect(json.id).toBe(inbox.id);
      expect(json.address).toBe(inbox.address);
    });

    it("returns an inbox on a verified custom domain by its address", async () => {
      const domain = `get-${randomBytes(5).toString("hex")}.example.com`;
      await insertDomain(server.db, { id: newId("domain"), projectId: server.project.projectId, domain, ownershipToken: "t", status: "verified" });
      const inbox = await server.createInbox({ tag: "signup", domain });
      const { status, json } = await getInbox(`SignUp@${domain.toUpperCase()}`);
      expect(status).toBe(200);
      expect(json).toEqual(inbox);
      expect(json.domain).toBe(domain);
    });
  });

  describe("404", () => {
    it("gives inbox_not_found for an unknown, well-formed id", async () => {
      const error = expectError(await getInbox(newId("inbox")), NOT_FOUND);
      expect(error.details).toBeUndefined();
    });

    it("gives inbox_not_found for an unknown address", async () => {
      expectError(await getInbox(`${server.project.projectKey}.never.created@mailstop.test`), NOT_FOUND);
    });

    it.each(["nope", "ibx_", "ibx_NOTAULID", "msg_01m80ptkaz7rrpa2naxhhm2mg3", "@", "a@"])("gives inbox_not_found for a malformed reference %p", async (reference) => {
      expectError(await getInbox(reference), NOT_FOUND);
    });

    it("gives inbox_not_found for another project's inbox, by id and by address", async () => {
      const other = await server.bootstrap();
      const theirs = await server.createInbox({ tag: uniqueTag("theirs") }, other);
      expectError(await getInbox(theirs.id), NOT_FOUND);
      expectError(await getInbox(theirs.address), NOT_FOUND);
      expectError(await getInbox(theirs.address.toUpperCase()), NOT_FOUND);
      // It is still there for its owner.
      expect((await getInbox(theirs.id, other.apiKey)).status).toBe(200);
    });

    it("gives inbox_not_found once the inbox is deleted", async () => {
      const inbox = await server.createInbox({ tag: uniqueTag("gone") });
      expect((await server.project.client.DELETE("/v1/inboxes/{id}", { params: { path: { id: inbox.id } } })).response.status).toBe(200);
      expectError(await getInbox(inbox.id), NOT_FOUND);
      expectError(await getInbox(inbox.address), NOT_FOUND);
    });
  });

  describe("401 and 403", () => {
    it("needs inboxes:read", async () => {
      const inbox = await server.createInbox({ tag: uniqueTag("get") });
      const writer = await server.bootstrap({ scopes: ["inboxes:write"] });
      const error = expectError(await getInbox(inbox.id, writer.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "inboxes:read" });
    });

    it("gives unauthenticated, before anything else, without an Authorization header", async () => {
      const inbox = await server.createInbox({ tag: uniqueTag("get") });
      expectError(await getInbox(inbox.id, null), { status: 401, code: "unauthenticated", retryable: false });
      expectError(await getInbox(newId("inbox"), null), { status: 401, code: "unauthenticated", retryable: false });
    });
  });
});
