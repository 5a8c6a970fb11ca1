import { newId, sha256 } from "@mailstop/core";
import { eventually, uniqueTag, useTestServer } from "@mailstop/testkit";
import type { ParserDeps } from "./deps";
import { parserDepsOf } from "./parser-deps.fixture";
import { reapJob } from "./reap.job";

const server = useTestServer({ mail: true });
let deps: ParserDeps;
beforeAll(() => {
  deps = parserDepsOf(server);
});

const createInbox = () => server.createInbox({ tag: uniqueTag("reap") });

async function deliver(to: string[], subject: string) {
  await server.send({ from: "a@b.test", to, subject, text: "bytes to reap", attachments: [{ filename: "x.txt", content: "attached" }] });
  return eventually(async () => {
    const rows = await server.db.selectFrom("messages").select(["id", "raw_key", "inbox_id"]).where("subject", "=", subject).execute();
    return rows.length === to.length ? rows : null;
  }, { what: subject });
}

const rawExists = async (rawKey: string) => (await deps.blobs.stat(rawKey)) !== null;

describe("the reaper", () => {
  it("deletes expired stream tokens and keeps live ones", async () => {
    const inbox = await createInbox();
    const mint = () => server.request("POST", `/v1/inboxes/${inbox.id}/stream-token`);
    const [expired, live] = [(await mint()).json.token as string, (await mint()).json.token as string];
    await server.db.updateTable("stream_tokens").set({ expires_at: new Date(Date.now() - 1000) }).where("token_hash", "=", sha256(expired)).execute();
    await reapJob(deps)();
    const left = await server.db.selectFrom("stream_tokens").select("token_hash").where("inbox_id", "=", inbox.id).execute();
    expect(left.map((row) => Buffer.from(row.token_hash).toString("hex"))).toEqual([sha256(live).toString("hex")]);
  });

  it("deletes an expired message and its stored objects; reads already treat it as not found", async () => {
    const inbox = await createInbox();
    const [message] = await deliver([inbox.address], `Expiring ${newId("message")}`);
    await server.db.updateTable("messages").set({ expires_at: new Date(Date.now() - 1000) }).where("id", "=", message!.id).execute();
    const read = await server.request("GET", `/v1/messages/${message!.id}`);
    expect(read.json.error.code).toBe("message_not_found");

    await reapJob(deps)();
    expect(await server.db.selectFrom("messages").select("id").where("id", "=", message!.id).execute()).toEqual([]);
    expect(await server.db.selectFrom("attachments").select("id").where("message_id", "=", message!.id).execute()).toEqual([]);
    expect(await rawExists(message!.raw_key)).toBe(false);
    const counts = await server.db.selectFrom("inboxes").select("message_count").where("id", "=", inbox.id).executeTakeFirstOrThrow();
    expect(counts.message_count).toBe(0);
  });

  it("keeps a raw source shared by another copy until its last row is gone", async () => {
    const a = await createInbox();
    const b = await createInbox();
    const copies = await deliver([a.address, b.address], `Shared ${newId("message")}`);
    const [first, second] = copies;
    expect(first!.raw_key).toBe(second!.raw_key);
    const erase = (id: string) => server.request("DELETE", `/v1/messages/${id}`);

    await erase(first!.id);
    await reapJob(deps)();
    expect(await rawExists(first!.raw_key)).toBe(true);
    expect(await server.db.selectFrom("messages").select("id").where("id", "=", second!.id).execute()).toHaveLength(1);

    await erase(second!.id);
    await reapJob(deps)();
    expect(await rawExists(first!.raw_key)).toBe(false);
  });

  it("removes the stored objects of a deleted inbox's messages", async () => {
    const inbox = await createInbox();
    const [message] = await deliver([inbox.address], `Inbox gone ${newId("message")}`);
    const deleted = await server.request("DELETE", `/v1/inboxes/${inbox.id}`);
    expect(deleted.json).toEqual({ id: inbox.id, deleted: true, messages_deleted: 1 });
    expect(await rawExists(message!.raw_key)).toBe(true);
    await reapJob(deps)();
    expect(await rawExists(message!.raw_key)).toBe(false);
    expect(await server.db.selectFrom("blob_deletions").select("prefix").execute()).toEqual([]);
  });
});

