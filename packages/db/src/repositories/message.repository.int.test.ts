import { sql } from "kysely";
import { newId } from "@mailstop/core";
import { createFreshDatabase, dropDatabase, runServerUrl } from "@mailstop/testkit";
import { type Db, createDatabase, migrateToLatest } from "../index";
import { ensureInbox } from "./inbox.repository";
import { type StoreMessageInput, storeMessageBatch } from "./message.repository";
import { storeInput } from "./store-input.fixture";
import { insertOrganisation, insertProject } from "./tenancy.repository";

const serverUrl = runServerUrl();
let database: { name: string; url: string };
let db: Db;
let projectId: string;

beforeAll(async () => {
  database = await createFreshDatabase(serverUrl, "mailstop_messages");
  db = createDatabase(database.url, { maxConnections: 4 });
  await migrateToLatest(db);
  const organisation = await insertOrganisation(db, { id: newId("organisation"), name: "batch" });
  projectId = newId("project");
  await insertProject(db, { id: projectId, organisationId: organisation.id, key: "batch", region: "us" });
});
afterAll(async () => {
  await db.destroy();
  await dropDatabase(serverUrl, database.name);
});

async function inbox(tag: string): Promise<string> {
  const { inbox } = await ensureInbox(db, newId("inbox"), { projectId, domainId: null, tag, address: `batch.${tag}@mailstop.test`, labels: {}, retentionSeconds: 3600 });
  return inbox.id;
}

const input = (rawKey: string, inboxIds: string[], receivedAt = new Date()): StoreMessageInput => storeInput(projectId, rawKey, inboxIds, { receivedAt, withAttachment: true });

const used = async () =>
  Number((await db.selectFrom("usage_counters").select("used").where("project_id", "=", projectId).where("metric", "=", "message.received").executeTakeFirst())?.used ?? 0);

describe("storeMessageBatch", () => {
  it("stores several sources in one transaction: counters move once per new copy, seq follows input order, a repeat finds its row", async () => {
    const [a, b] = [await inbox("a"), await inbox("b")];
    const before = await used();
    const first = input(`raw/${newId("message")}`, [a, b]);
    const second = input(`raw/${newId("message")}`, [a]);
    // The same job twice in one batch (a duplicated delivery), and a copy for a deleted inbox.
    const results = await storeMessageBatch(db, [first, second, { ...second, copies: second.copies.map((c) => ({ ...c, newMessageId: newId("message") })) }, input("raw/gone", [newId("inbox")])]);

    expect(results.map((copies) => copies.map((c) => c.inserted))).toEqual([[true, true], [true], [false], []]);
    expect(results[2]![0]!.messageId).toBe(results[1]![0]!.messageId);
    const rows = await db.selectFrom("messages").select(["id", "raw_key", "seq", "stream_seq"]).where("inbox_id", "=", a).orderBy("seq").execute();
    expect(rows.map((r) => r.raw_key)).toEqual([first.rawKey, second.rawKey]);
    expect(BigInt(rows[0]!.stream_seq!)).toBeLessThan(BigInt(rows[1]!.stream_seq!));
    const counts = await db.selectFrom("inboxes").select(["id", "message_count"]).where("id", "in", [a, b]).execute();
    expect(Object.fromEntries(counts.map((c) => [c.id, c.message_count]))).toEqual({ [a]: 2, [b]: 1 });
    expect((await used()) - before).toBe(3);
    expect(await db.selectFrom("attachments").select("id").where("message_id", "in", rows.map((r) => r.id)).execute()).toHaveLength(2);

    // Retried later: nothing moves.
    const again = await storeMessageBatch(db, [first]);
    expect(again[0]!.map((c) => c.inserted)).toEqual([false, false]);
    expect((await used()) - before).toBe(3);
  });

  it("stores nothing of a batch that fails", async () => {
    const a = await inbox("c");
    const broken = input(`raw/${newId("message")}`, [a]);
    // Two copies claiming one message id: the batch's insert fails as a whole.
    const clash = { ...input(`raw/${newId("message")}`, [a]), copies: broken.copies };
    await expect(storeMessageBatch(db, [input(`raw/${newId("message")}`, [a]), broken, { ...clash, rawKey: `raw/${newId("message")}` }])).rejects.toThrow();
    expect(await db.selectFrom("messages").select("id").where("inbox_id", "=", a).execute()).toHaveLength(0);
  });

  it("stores a large source into many inboxes: its body travels once, not once per copy (jsonb stops at 256 MB)", async () => {
    const inboxes = await Promise.all(Array.from({ length: 30 }, (_, n) => inbox(`big${n}`)));
    const big = input(`raw/${newId("message")}`, inboxes);
    // 9 MB of text: 270 MB if every copy carried it inside the statement's jsonb.
    const text = "0123456789abcdef".repeat(9 * 65_536);
    const [copies] = await storeMessageBatch(db, [{ ...big, content: { ...big.content, textBody: text } }]);
    expect(copies!.map((copy) => copy.inserted)).toEqual(inboxes.map(() => true));
    const lengths = await db.selectFrom("messages").select(sql<number>`length(text_body)`.as("length")).where("raw_key", "=", big.rawKey).execute();
    expect(lengths.map((row) => Number(row.length))).toEqual(inboxes.map(() => text.length));
  });
});
