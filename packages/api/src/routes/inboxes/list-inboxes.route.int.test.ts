import { type TestProject, expectError, useTestServer } from "@mailstop/testkit";

const server = useTestServer({ project: false });

const BAD_REQUEST = { status: 400, code: "invalid_request", retryable: false } as const;

const createInbox = (project: TestProject, tag: string, labels: Record<string, string> = {}) => server.createInbox({ tag, labels }, project);

/** Creates inboxes one after the other, so their creation order is known. */
async function createInOrder(project: TestProject, tags: string[]) {
  const created = [];
  for (const tag of tags) created.push(await createInbox(project, tag));
  return created;
}

/** Creates inboxes in parallel batches of 25 (order within a batch unknown). */
async function createMany(project: TestProject, tags: string[]) {
  const created = [];
  for (let i = 0; i < tags.length; i += 25) created.push(...(await Promise.all(tags.slice(i, i + 25).map((tag) => createInbox(project, tag)))));
  return created;
}

const list = (project: TestProject, query: string) => server.request("GET", `/v1/inboxes${query === "" ? "" : `?${query}`}`, { apiKey: project.apiKey });

async function listTags(project: TestProject, query: { tag_prefix?: string; label_key?: string; label_value?: string; limit?: number }) {
  const { data, error, response } = await project.client.GET("/v1/inboxes", { params: { query } });
  expect(error).toBeUndefined();
  expect(response.status).toBe(200);
  return data!.data.map((inbox) => inbox.tag);
}

describe("GET /v1/inboxes", () => {
  describe("200", () => {
    it("lists newest first with the inbox view, default limit 50 echoed, next_cursor null on the last page", async () => {
      const project = await server.bootstrap();
      const created = await createInOrder(project, ["first", "second", "third"]);
      const { data, error, response } = await project.client.GET("/v1/inboxes");
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual({ data: [...created].reverse(), limit: 50, next_cursor: null });
    });

    it("pages at the default limit of 50: 51 inboxes give a full page with a cursor, then the last one", async () => {
      const project = await server.bootstrap();
      const created = await createMany(project, Array.from({ length: 51 }, (_, i) => `bulk.n${i}`));
      const first = await project.client.GET("/v1/inboxes");
      expect(first.data?.limit).toBe(50);
      expect(first.data?.data).toHaveLength(50);
      expect(first.data?.next_cursor).toEqual(expect.any(String));
      const second = await project.client.GET("/v1/inboxes", { params: { query: { cursor: first.data!.next_cursor! } } });
      expect(second.data?.limit).toBe(50);
      expect(second.data?.data).toHaveLength(1);
      expect(second.data?.next_cursor).toBeNull();
      const seen = [...first.data!.data, ...second.data!.data].map((inbox) => inbox.id);
      expect(seen).toEqual(created.map((inbox) => inbox.id).sort().reverse());
    });

    it("echoes the limit it was given and accepts the bounds 1 and 200", async () => {
      const project = await server.bootstrap();
      await createInOrder(project, ["one", "two"]);
      const one = await project.client.GET("/v1/inboxes", { params: { query: { limit: 1 } } });
      expect(one.data?.limit).toBe(1);
      expect(one.data?.data.map((inbox) => inbox.tag)).toEqual(["two"]);
      expect(one.data?.next_cursor).toEqual(expect.any(String));
      const max = await project.client.GET("/v1/inboxes", { params: { query: { limit: 200 } } });
      expect(max.data?.limit).toBe(200);
      expect(max.data?.data.map((inbox) => inbox.tag)).toEqual(["two", "one"]);
      expect(max.data?.next_cursor).toBeNull();
    });

    it("returns an empty page, not an error, when nothing matches", async () => {
      const project = await server.bootstrap();
      const { data, response } = await project.client.GET("/v1/inboxes", { params: { query: { tag_prefix: "nothing.here" } } });
      expect(response.status).toBe(200);
      expect(data).toEqual({ data: [], limit: 50, next_cursor: null });
    });

    it("matches tag_prefix a.b on a.b and its dot-children, never on a.bc or a", async () => {
      const project = await server.bootstrap();
      await createInOrder(project, ["a", "a.b", "a.bc", "a.b.c", "a.b.c.d", "a.b-c", "a.b_c", "ab", "x.a.b"]);
      expect(await listTags(project, { tag_prefix: "a.b" })).toEqual(["a.b.c.d", "a.b.c", "a.b"]);
      expect(await listTags(project, { tag_prefix: "a" })).toEqual(["a.b_c", "a.b-c", "a.b.c.d", "a.b.c", "a.bc", "a.b", "a"]);
      expect(await listTags(project, { tag_prefix: "a.b.c.d.e" })).toEqual([]);
    });

    it("lower-cases tag_prefix before matching", async () => {
      const project = await server.bootstrap();
      await createInOrder(project, ["signup.eu", "signup.us", "login"]);
      expect(await listTags(project, { tag_prefix: "SignUp" })).toEqual(["signup.us", "signup.eu"]);
      expect(await listTags(project, { tag_prefix: "SIGNUP.EU" })).toEqual(["signup.eu"]);
    });

    it("filters on label_key with label_value, exactly", async () => {
      const project = await server.bootstrap();
      await createInbox(project, "l.one", { team: "red", suite: "auth" });
      await createInbox(project, "l.two", { team: "blue" });
      await createInbox(project, "l.three", { team: "red" });
      await createInbox(project, "l.four", { team: "reddish" });
      await createInbox(project, "l.five", { colour: "red" });
      expect(await listTags(project, { label_key: "team", label_value: "red" })).toEqual(["l.three", "l.one"]);
      expect(await listTags(project, { label_key: "team", label_value: "RED" })).toEqual([]);
      expect(await listTags(project, { label_key: "suite", label_value: "auth" })).toEqual(["l.one"]);
    });

    it("ANDs tag_prefix and the label selector", async () => {
      const project = await server.bootstrap();
      await createInbox(project, "x.one", { team: "red" });
      await createInbox(project, "x.two", { team: "blue" });
      await createInbox(project, "y.one", { team: "red" });
      expect(await listTags(project, { tag_prefix: "x", label_key: "team", label_value: "red" })).toEqual(["x.one"]);
      expect(await listTags(project, { tag_prefix: "y", label_key: "team", label_value: "blue" })).toEqual([]);
    });

    it("never lists another project's inboxes", async () => {
      const mine = await server.bootstrap();
      const theirs = await server.bootstrap();
      const own = await createInbox(mine, "shared.tag", { team: "red" });
      await createInbox(theirs, "shared.tag", { team: "red" });
      await createInbox(theirs, "only.theirs", { team: "red" });
      const everything = await mine.client.GET("/v1/inboxes");
      expect(everything.data?.data.map((inbox) => inbox.id)).toEqual([own.id]);
      expect((await mine.client.GET("/v1/inboxes", { params: { query: { tag_prefix: "shared" } } })).data?.data.map((i) => i.id)).toEqual([own.id]);
      expect((await mine.client.GET("/v1/inboxes", { params: { query: { label_key: "team", label_value: "red" } } })).data?.data.map((i) => i.id)).toEqual([
        own.id,
      ]);
    });

    it("pages with a cursor: each original inbox exactly once, newest first, while 10 more are created between pages", async () => {
      const project = await server.bootstrap();
      const originals = await createInOrder(project, Array.from({ length: 25 }, (_, i) => `page.orig${i}`));
      const expected = originals.map((inbox) => inbox.id).reverse();

      const collected: { id: string; created_at: string }[] = [];
      let cursor: string | undefined;
      let pages = 0;
      let extra = 0;
      do {
        const { data, error } = await project.client.GET("/v1/inboxes", { params: { query: { tag_prefix: "page", limit: 7, ...(cursor ? { cursor } : {}) } } });
        expect(error).toBeUndefined();
        expect(data!.limit).toBe(7);
        expect(data!.data.length).toBeLessThanOrEqual(7);
        collected.push(...data!.data);
        cursor = data!.next_cursor ?? undefined;
        pages += 1;
        // Newer inboxes arrive while the client is paging.
        if (cursor !== undefined) {
          const batch = extra < 10 ? Math.min(4, 10 - extra) : 0;
          await createInOrder(project, Array.from({ length: batch }, (_, i) => `page.extra${extra + i}`));
          extra += batch;
        }
        if (pages > 10) throw new Error("paging did not end");
      } while (cursor !== undefined);

      expect(extra).toBe(10);
      expect(pages).toBe(4);
      const ids = collected.map((inbox) => inbox.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expected);
      for (let i = 1; i < collected.length; i += 1) {
        expect(collected[i - 1]!.id > collected[i]!.id).toBe(true);
        expect(Date.parse(collected[i - 1]!.created_at)).toBeGreaterThanOrEqual(Date.parse(collected[i]!.created_at));
      }
      // The newcomers are all there on a fresh first page.
      expect(await listTags(project, { tag_prefix: "page", limit: 10 })).toEqual(Array.from({ length: 10 }, (_, i) => `page.extra${9 - i}`));
    });
  });

  describe("400", () => {
    let project: TestProject;
    beforeAll(async () => {
      project = await server.bootstrap();
    });

    it.each(["0", "201", "abc", "-1", "1.5"])("refuses limit=%s", async (limit) => {
      const error = expectError(await list(project, `limit=${limit}`), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "query", path: "/limit", message: expect.any(String) }]);
    });

    it.each([
      ["a space", "a%20b"],
      ["an empty segment", "a..b"],
      ["a trailing dot", "a."],
      ["a plus sign", "a%2Bb"],
      ["an empty value", ""],
    ])("refuses a tag_prefix with %s", async (_case, prefix) => {
      const error = expectError(await list(project, `tag_prefix=${prefix}`), BAD_REQUEST);
      expect(error.details?.errors).toEqual([{ in: "query", path: "/tag_prefix", message: expect.any(String) }]);
    });

    it("refuses label_key without label_value, and label_value without label_key", async () => {
      const keyOnly = expectError(await list(project, "label_key=team"), BAD_REQUEST);
      expect(keyOnly.details?.errors).toEqual([{ in: "query", path: "/label_value", message: expect.any(String) }]);
      const valueOnly = expectError(await list(project, "label_value=red"), BAD_REQUEST);
      expect(valueOnly.details?.errors).toEqual([{ in: "query", path: "/label_key", message: expect.any(String) }]);
    });

    it.each([
      ["not base64 JSON", "nope"],
      ["garbage", "%21%21%21"],
      ["empty", ""],
      ["a JSON cursor of an unknown version", Buffer.from(JSON.stringify({ v: 2, before: "ibx_x" })).toString("base64url")],
      ["a JSON value that is not a cursor", Buffer.from("[1,2]").toString("base64url")],
    ])("refuses a malformed cursor (%s) at /cursor", async (_case, cursor) => {
      const error = expectError(await list(project, `cursor=${cursor}`), BAD_REQUEST);
      expect(error.details?.errors[0].path).toBe("/cursor");
      expect(error.details?.errors).toEqual([{ in: "query", path: "/cursor", message: expect.any(String) }]);
    });
  });

  describe("401 and 403", () => {
    it("needs inboxes:read", async () => {
      const writer = await server.bootstrap({ scopes: ["inboxes:write"] });
      const error = expectError(await list(writer, ""), { status: 403, code: "insufficient_scope", retryable: false });
      expect(error.details).toEqual({ required_scope: "inboxes:read" });
    });

    it("gives unauthenticated without an Authorization header", async () => {
      expectError(await server.request("GET", "/v1/inboxes", { apiKey: null }), { status: 401, code: "unauthenticated", retryable: false });
    });
  });
});
