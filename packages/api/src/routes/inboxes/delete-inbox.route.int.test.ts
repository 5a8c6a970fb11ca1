import { newId } from "@mailstop/core";
import { expectError, insertMessageRows, useTestServer } from "@mailstop/testkit";

const server = useTestServer();

const NOT_FOUND = { status: 404, code: "inbox_not_found", retryable: false } as const;

const insertMessages = (inbox: { id: string; address: string }, projectId: string, count: number) =>
  insertMessageRows(server.db, inbox, projectId, count);

const countInboxRows = async (id: string) =>
  Number((await server.db.selectFrom("inboxes").select((eb) => eb.fn.countAll().as("n")).where("id", "=", id).executeTakeFirstOrThrow()).n);

const countMessageRows = async (inboxId: string) =>
  Number((await server.db.selectFrom("messages").select((eb) => eb.fn.countAll().as("n")).where("inbox_id", "=", inboxId).executeTakeFirstOrThrow()).n);

const deleteInbox = (reference: string, apiKey: string | null = server.apiKey) => server.request("DELETE", `/v1/inboxes/${encodeURIComponent(reference)}`, { apiKey });

describe("DELETE /v1/inboxes/{id}", () => {
  describe("200", () => {
    it("hard-deletes the inbox and its messages, counting them", async () => {
      const inbox = await server.createInbox();
      const keep = await server.createInbox();
      await insertMessages(inbox, server.project.projectId, 3);
      await insertMessages(keep, server.project.projectId, 2);
      expect(await countMessageRows(inbox.id)).toBe(3);

      const { data, error, response } = await server.project.client.DELETE("/v1/inboxes/{id}", { params: { path: { id: inbox.id } } });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual({ id: inbox.id, deleted: true, messages_deleted: 3 });

      expect(await countInboxRows(inbox.id)).toBe(0);
      expect(await countMessageRows(inbox.id)).toBe(0);
      // Nothing else is touched.
      expect(await countInboxRows(keep.id)).toBe(1);
      expect(await countMessageRows(keep.id)).toBe(2);
    });

    it("reports messages_deleted 0 for an inbox without messages", async () => {
      const inbox = await server.createInbox();
      const { status, json } = await deleteInbox(inbox.id);
      expect(status).toBe(200);
      expect(json).toEqual({ id: inbox.id, deleted: true, messages_deleted: 0 });
    });

    it("deletes by address, in any case, answering with the id", async () => {
      const inbox = await server.createInbox();
      await insertMessages(inbox, server.project.projectId, 1);
      const { status, json } = await deleteInbox(inbox.address.toUpperCase());
      expect(status).toBe(200);
      expect(json).toEqual({ id: inbox.id, deleted: true, messages_deleted: 1 });
      expect(await countInboxRows(inbox.id)).toBe(0);
      expect(await countMessageRows(inbox.id)).toBe(0);
    });

    it("frees the address: creating the same tag again gives a new, empty inbox", async () => {
      const inbox = await server.createInbox();
      await insertMessages(inbox, server.project.projectId, 2);
      expect((await deleteInbox(inbox.id)).status).toBe(200);
      const again = await server.createInbox({ tag: inbox.tag });
      expect(again.address).toBe(inbox.address);
      expect(again.id).not.toBe(inbox.id);
      expect(await countMessageRows(again.id)).toBe(0);
    });
  });

  describe("404", () => {
    it("gives inbox_not_found on a second delete, by id and by address", async () => {
      const inbox = await server.createInbox();
      expect((await deleteInbox(inbox.id)).status).toBe(200);
      expectError(await deleteInbox(inbox.id), NOT_FOUND);
      expectError(await deleteInbox(inbox.address), NOT_FOUND);
    });

    it.each([
      ["a malformed id", "nope"],
      ["an unknown id", newId("inbox")],
      ["an unknown address", "someone.never@mailstop.test"],
    ])("gives inbox_not_found for %s", async (_case, reference) => {
      expectError(await deleteInbox(reference), NOT_FOUND);
    });

    it("cannot delete another project's inbox, by id or by address; it survives with its messages", async () => {
      const other = await server.bootstrap();
      const theirs = await server.createInbox({}, other);
      await insertMessages(theirs, other.projectId, 2);
      expectError(await deleteInbox(theirs.id), NOT_FOUND);
      expectError(await deleteInbox(theirs.address), NOT_FOUND);
      expect(await countInboxRows(theirs.id)).toBe(1);
      expect(await countMessageRows(theirs.id)).toBe(2);
      const { status, json } = await server.request("GET", `/v1/inboxes/${theirs.id}`, { apiKey: other.apiKey });
      expect(status).toBe(200);
      expect(json.id).toBe(theirs.id);
    });

    it("lets exactly one of two concurrent deletes win", async () => {
      const inbox = await server.createInbox();
      await insertMessages(inbox, server.project.projectId, 3);
      const outcomes = await Promise.all([deleteInbox(inbox.id), deleteInbox(inbox.id)]);
      const winners = outcomes.filter((o) => o.status === 200);
      const losers = outcomes.filter((o) => o.status !== 200);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.json).toEqual({ id: inbox.id, deleted: true, messages_deleted: 3 });
      expect(losers).toHaveLength(1);
      expectError(losers[0]!, NOT_FOUND);
    });
  });

  describe("401 and 403", () => {
    it("needs inboxes:write, and deletes nothing without it", async () => {
      const inbox = await server.createInbox();
      await insertMessages(inbox, server.project.projectId, 1);
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const error = expectError(await deleteInbox(inbox.id, reader.apiKey), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "inboxes:write" });
      expect(await countInboxRows(inbox.id)).toBe(1);
      expect(await countMessageRows(inbox.id)).toBe(1);
    });

    it("gives unauthenticated without an Authorization header", async () => {
      const inbox = await server.createInbox();
      expectError(await deleteInbox(inbox.id, null), { status: 401, code: "unauthenticated", retryable: false });
      expect(await countInboxRows(inbox.id)).toBe(1);
    });
  });
});
