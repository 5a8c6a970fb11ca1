import { newId } from "@mailstop/core";
import { type TestProject, expectError, insertMessageRows, useTestServer } from "@mailstop/testkit";

const server = useTestServer({ project: false });

const BAD_REQUEST = { status: 400, code: "invalid_request", retryable: false } as const;

interface InboxRef {
  id: string;
  address: string;
  tag: string;
}

const createInbox = (owner: TestProject, tag: string, labels: Record<string, string> = {}): Promise<InboxRef> => server.createInbox({ tag, labels }, owner);

/** Inserts inbox rows straight into the table (faster than the API for bulk set-ups). */
async function insertInboxRows(owner: TestProject, tags: string[], labels: Record<string, string> = {}): Promise<InboxRef[]> {
  const rows = tags.map((tag) => ({
    id: newId("inbox"),
    project_id: owner.projectId,
    domain_id: null,
    tag,
    address: `${owner.projectKey}.${tag}@mailstop.test`,
    labels: JSON.stringify(labels),
    retention_seconds: 86400,
  }));
  await server.db.insertInto("inboxes").values(rows).execute();
  return rows.map(({ id, address, tag }) => ({ id, address, tag }));
}

const insertMessages = (inbox: { id: string; address: string }, projectId: string, count: number) =>
  insertMessageRows(server.db, inbox, projectId, count);

const cleanup = (owner: TestProject, body: unknown) => server.request("POST", "/v1/inboxes/cleanup", { apiKey: owner.apiKey, body });

/** Every tag of the project's inboxes, sorted. */
async function remainingTags(owner: TestProject): Promise<string[]> {
  const rows = await server.db.selectFrom("inboxes").select("tag").where("project_id", "=", owner.projectId).execute();
  return rows.map((row) => row.tag).sort();
}

const countMessages = async (owner: TestProject) =>
  Number(
    (await server.db.selectFrom("messages").select((eb) => eb.fn.countAll().as("n")).where("project_id", "=", owner.projectId).executeTakeFirstOrThrow()).n,
  );

describe("POST /v1/inboxes/cleanup", () => {
  describe("200", () => {
    it("deletes the tag_prefix and its dot-children only, purging their messages", async () => {
      const project = await server.bootstrap();
      const tags = ["a", "a.b", "a.b.c", "a.b.c.d", "a.bc", "a.b-c", "ab", "x.a.b"];
      const inboxes = new Map<string, InboxRef>();
      for (const tag of tags) inboxes.set(tag, await createInbox(project, tag));
      await insertMessages(inboxes.get("a.b")!, project.projectId, 2);
      await insertMessages(inboxes.get("a.b.c.d")!, project.projectId, 1);
      await insertMessages(inboxes.get("a.bc")!, project.projectId, 4);

      const { data, error, response } = await project.client.POST("/v1/inboxes/cleanup", { body: { tag_prefix: "a.b" } });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual({ inboxes_deleted: 3, messages_deleted: 3 });
      expect(await remainingTags(project)).toEqual(["a", "a.b-c", "a.bc", "ab", "x.a.b"]);
      expect(await countMessages(project)).toBe(4);
    });

    it("lower-cases tag_prefix before matching", async () => {
      const project = await server.bootstrap();
      await createInbox(project, "signup.one");
      await createInbox(project, "signup.two");
      await createInbox(project, "login");
      expect((await cleanup(project, { tag_prefix: "SignUp" })).json).toEqual({ inboxes_deleted: 2, messages_deleted: 0 });
      expect(await remainingTags(project)).toEqual(["login"]);
    });

    it("deletes by label selector, matching the exact value", async () => {
      const project = await server.bootstrap();
      const red = await createInbox(project, "l.red", { team: "red", suite: "auth" });
      await createInbox(project, "l.red2", { team: "red" });
      await createInbox(project, "l.blue", { team: "blue" });
      await createInbox(project, "l.reddish", { team: "reddish" });
      await createInbox(project, "l.colour", { colour: "red" });
      await insertMessages(red, project.projectId, 2);
      const { status, json } = await cleanup(project, { label_key: "team", label_value: "red" });
      expect(status).toBe(200);
      expect(json).toEqual({ inboxes_deleted: 2, messages_deleted: 2 });
      expect(await remainingTags(project)).toEqual(["l.blue", "l.colour", "l.reddish"]);
    });

    it("ANDs tag_prefix and the label selector", async () => {
      const project = await server.bootstrap();
      await createInbox(project, "x.one", { team: "red" });
      await createInbox(project, "x.two", { team: "blue" });
      await createInbox(project, "y.one", { team: "red" });
      expect((await cleanup(project, { tag_prefix: "x", label_key: "team", label_value: "red" })).json).toEqual({ inboxes_deleted: 1, messages_deleted: 0 });
      expect(await remainingTags(project)).toEqual(["x.two", "y.one"]);
    });

    it("answers 0 and 0 when nothing matches", async () => {
      const project = await server.bootstrap();
      await createInbox(project, "kept");
      expect((await cleanup(project, { tag_prefix: "gone" })).json).toEqual({ inboxes_deleted: 0, messages_deleted: 0 });
      expect(await remainingTags(project)).toEqual(["kept"]);
    });

    it("deletes at most 200 per call, oldest first: 205 matching inboxes take 200, then 5, then 0", async () => {
      const project = await server.bootstrap();
      // Most rows go in directly; the newest 25 come through the API in parallel batches.
      const direct = await insertInboxRows(
        project,
        Array.from({ length: 180 }, (_, i) => `bulk.d${i}`),
        { batch: "big" },
      );
      const viaApi = await Promise.all(Array.from({ length: 25 }, (_, i) => createInbox(project, `bulk.api${i}`, { batch: "big" })));
      await createInbox(project, "other.kept", { batch: "big" });
      await insertMessages(direct[0]!, project.projectId, 2);
      await insertMessages(viaApi[0]!, project.projectId, 1);
      const newestFive = [...direct, ...viaApi]
        .map((inbox) => inbox.id)
        .sort()
        .slice(-5);
      const viaApiNewestFive = viaApi.map((inbox) => inbox.id).sort().slice(-5);
      expect(newestFive).toEqual(viaApiNewestFive);

      const first = await cleanup(project, { tag_prefix: "bulk" });
      expect(first.status).toBe(200);
      expect(first.json.inboxes_deleted).toBe(200);
      const afterFirst = await server.db.selectFrom("inboxes").select("id").where("project_id", "=", project.projectId).where("tag", "like", "bulk.%").execute();
      expect(afterFirst.map((row) => row.id).sort()).toEqual(newestFive);

      const second = await cleanup(project, { tag_prefix: "bulk" });
      expect(second.json.inboxes_deleted).toBe(5);
      const third = await cleanup(project, { tag_prefix: "bulk" });
      expect(third.json).toEqual({ inboxes_deleted: 0, messages_deleted: 0 });

      expect(first.json.messages_deleted + second.json.messages_deleted).toBe(3);
      expect(await countMessages(project)).toBe(0);
      expect(await remainingTags(project)).toEqual(["other.kept"]);
    });

    it("gives concurrent calls disjoint batches: two calls over 250 matches delete all 250, neither answering 0 too early", async () => {
      const project = await server.bootstrap();
      for (let round = 0; round < 5; round += 1) {
        await insertInboxRows(
          project,
          Array.from({ length: 250 }, (_, i) => `race.r${round}.n${i}`),
        );
        const [a, b] = await Promise.all([cleanup(project, { tag_prefix: "race" }), cleanup(project, { tag_prefix: "race" })]);
        expect([a.status, b.status]).toEqual([200, 200]);
        const counts = [a.json.inboxes_deleted, b.json.inboxes_deleted];
        expect(Math.max(...counts)).toBeLessThanOrEqual(200);
        expect(counts[0] + counts[1]).toBe(250);
        expect(await remainingTags(project)).toEqual([]);
      }
    });

    it("never touches another project's matching inboxes", async () => {
      const mine = await server.bootstrap();
      const theirs = await server.bootstrap();
      await createInbox(mine, "run.42.a", { run_id: "42" });
      const theirA = await createInbox(theirs, "run.42.a", { run_id: "42" });
      await createInbox(theirs, "run.42.b", { run_id: "42" });
      await insertMessages(theirA, theirs.projectId, 2);

      expect((await cleanup(mine, { tag_prefix: "run.42" })).json).toEqual({ inboxes_deleted: 1, messages_deleted: 0 });
      expect((await cleanup(mine, { label_key: "run_id", label_value: "42" })).json).toEqual({ inboxes_deleted: 0, messages_deleted: 0 });
      expect((await cleanup(mine, { tag_prefix: "run", label_key: "run_id", label_value: "42" })).json).toEqual({ inboxes_deleted: 0, messages_deleted: 0 });

      expect(await remainingTags(mine)).toEqual([]);
      expect(await remainingTags(theirs)).toEqual(["run.42.a", "run.42.b"]);
      expect(await countMessages(theirs)).toBe(2);
    });
  });

  describe("400", () => {
    let project: TestProject;
    beforeAll(async () => {
      project = await server.bootstrap();
      await createInbox(project, "guarded", { team: "red" });
    });
    afterEach(async () => {
      // A refused cleanup deletes nothing.
      expect(await remainingTags(project)).toEqual(["guarded"]);
    });

    it("refuses a body without any selector", async () => {
      const error = expectError(await cleanup(project, {}), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/", message: expect.any(String) }]);
    });

    it("refuses a missing body", async () => {
      const outcome = await server.request("POST", "/v1/inboxes/cleanup", { apiKey: project.apiKey, headers: { "content-type": "application/json" } });
      expectError(outcome, BAD_REQUEST);
    });

    it("refuses label_key without label_value, and label_value without label_key", async () => {
      const keyOnly = expectError(await cleanup(project, { label_key: "team" }), BAD_REQUEST);
      expect(keyOnly.details?.errors).toEqual([{ in: "body", path: "/label_value", message: expect.any(String) }]);
      const valueOnly = expectError(await cleanup(project, { label_value: "red" }), BAD_REQUEST);
      expect(valueOnly.details?.errors).toEqual([{ in: "body", path: "/label_key", message: expect.any(String) }]);
    });

    it("refuses label_key without label_value even beside a tag_prefix", async () => {
      const error = expectError(await cleanup(project, { tag_prefix: "guarded", label_key: "team" }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/label_value", message: expect.any(String) }]);
    });

    it("refuses a property the document does not declare", async () => {
      const error = expectError(await cleanup(project, { tag_prefix: "guarded", tag: "guarded" }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/tag", message: "is not an allowed property" }]);
    });

    it.each([
      ["a space", "gua rded"],
      ["an empty segment", "a..b"],
      ["an empty value", ""],
      ["a wildcard", "guard*"],
    ])("refuses a tag_prefix with %s", async (_case, prefix) => {
      const error = expectError(await cleanup(project, { tag_prefix: prefix }), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "body", path: "/tag_prefix", message: expect.any(String) }]);
    });
  });

  describe("401 and 403", () => {
    it("needs inboxes:write, and deletes nothing without it", async () => {
      const owner = await server.bootstrap();
      await createInbox(owner, "kept.one");
      const reader = await server.bootstrap({ scopes: ["inboxes:read"] });
      const error = expectError(await cleanup(reader, { tag_prefix: "kept" }), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "inboxes:write" });
      expect(await remainingTags(owner)).toEqual(["kept.one"]);
    });
  });
});
