import { newId } from "@mailstop/core";
import type { Db } from "../index";
import { deleteInbox, ensureInbox } from "./inbox.repository";
import { tombstoneMessage } from "./message-read.repository";
import { storeMessageBatch } from "./message.repository";
import { reapMessages } from "./reaper.repository";
import { useRepositoryDatabase } from "./repository-database.fixture";
import { storeInput } from "./store-input.fixture";
import { insertOrganisation, insertProject } from "./tenancy.repository";

const suite = useRepositoryDatabase("mailstop_storage_usage");
let db: Db;
beforeAll(() => {
  db = suite.db;
});

async function project(): Promise<string> {
  const organisation = await insertOrganisation(db, { id: newId("organisation"), name: "storage" });
  const id = newId("project");
  await insertProject(db, { id, organisationId: organisation.id, key: `s${id.slice(-10)}`, region: "us" });
  return id;
}

async function inbox(projectId: string, tag: string): Promise<string> {
  const { inbox } = await ensureInbox(db, newId("inbox"), { projectId, domainId: null, tag, address: `${projectId}.${tag}@mailstop.test`, labels: {}, retentionSeconds: 3600 });
  return inbox.id;
}

const meter = async (projectId: string) => Number((await db.selectFrom("storage_usage").select("bytes").where("project_id", "=", projectId).executeTakeFirst())?.bytes ?? 0);
/** What the meter must equal: the sizes of the project's rows not tombstoned. */
const liveBytes = async (projectId: string) =>
  Number((await db.selectFrom("messages").select((eb) => eb.fn.coalesce(eb.fn.sum<string>("size"), eb.lit(0)).as("bytes")).where("project_id", "=", projectId).where("deleted_at", "is", null).executeTakeFirstOrThrow()).bytes);

/** Stores one source of `size` bytes into the inboxes; returns its first copy's message id. */
const store = async (projectId: string, inboxIds: string[], size: number, receivedAt = new Date()) =>
  (await storeMessageBatch(db, [{ ...storeInput(projectId, `raw/${newId("message")}`, inboxIds, { receivedAt }), size }]))[0]![0]!.messageId;

describe("the storage.bytes meter", () => {
  it("gains each new copy's size once (a retried store moves nothing), per project", async () => {
    const [mine, theirs] = [await project(), await project()];
    const [a, b] = [await inbox(mine, "a"), await inbox(mine, "b")];
    const input = { ...storeInput(mine, `raw/${newId("message")}`, [a, b]), size: 700 };
    await storeMessageBatch(db, [input, { ...storeInput(theirs, `raw/${newId("message")}`, [await inbox(theirs, "c")]), size: 5 }]);
    await storeMessageBatch(db, [input]);
    expect(await meter(mine)).toBe(1400);
    expect(await meter(theirs)).toBe(5);
  });

  it("loses a tombstoned copy's size at once, and the reaper does not take it again", async () => {
    const projectId = await project();
    const target = await inbox(projectId, "t");
    await store(projectId, [target], 300);
    const erased = await store(projectId, [target], 40);
    expect(await meter(projectId)).toBe(340);
    expect(await tombstoneMessage(db, projectId, erased)).toBe(true);
    expect(await tombstoneMessage(db, projectId, erased)).toBe(false);
    expect(await meter(projectId)).toBe(300);
    while ((await reapMessages(db, 500)) > 0);
    expect(await meter(projectId)).toBe(300);
    expect(await meter(projectId)).toBe(await liveBytes(projectId));
  });

  it("loses an expired copy's size when the reaper deletes it", async () => {
    const projectId = await project();
    const target = await inbox(projectId, "x");
    await store(projectId, [target], 90, new Date(Date.now() - 2 * 3600_000));
    await store(projectId, [target], 11);
    expect(await meter(projectId)).toBe(101);
    while ((await reapMessages(db, 500)) > 0);
    expect(await meter(projectId)).toBe(11);
    expect(await liveBytes(projectId)).toBe(11);
  });

  it("loses the sizes of an inbox's live copies when the inbox is deleted", async () => {
    const projectId = await project();
    const [gone, stays] = [await inbox(projectId, "gone"), await inbox(projectId, "stays")];
    await store(projectId, [gone, stays], 200);
    await tombstoneMessage(db, projectId, await store(projectId, [gone], 17));
    expect(await meter(projectId)).toBe(400);
    await deleteInbox(db, projectId, gone);
    expect(await meter(projectId)).toBe(200);
    expect(await liveBytes(projectId)).toBe(200);
  });
});
