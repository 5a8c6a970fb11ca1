import { once } from "node:events";
import { createLogger } from "@mailstop/logging";
import { createRedis } from "@mailstop/messaging";
import { type TestRedis, startTestRedis, uniqueTag, useTestServer } from "@mailstop/testkit";

// A wait takes a concurrency slot, then subscribes to its inbox's arrivals. When the subscribe
// fails, the slot must go back: a slot kept would be renewed for as long as the waiter runs,
// and the project would hold one wait fewer across the fleet. Real engines in this process
// only (`.engines.int.test.ts`): a Redis of the file's own whose ACL refuses pub/sub.

describe("a wait whose subscribe fails", () => {
  let redis: TestRedis;
  let url: URL;

  beforeAll(async () => {
    redis = await startTestRedis();
    const admin = createRedis(redis.url, "command", createLogger({ level: "silent" }));
    await once(admin, "ready");
    // Every command on every key, but no channel: SUBSCRIBE answers NOPERM, the slots' scripts run.
    await admin.call("ACL", "SETUSER", "nochannels", "on", ">secret", "~*", "resetchannels", "+@all");
    admin.disconnect();
    url = new URL(redis.url);
    url.username = "nochannels";
    url.password = "secret";
  });
  const server = useTestServer(() => ({ mail: true, env: { REDIS_URL: url.toString() }, project: false }));
  afterAll(() => redis.kill());

  it("gives its concurrency slot back, so the next wait is not refused with concurrency_limit", async () => {
    const project = await server.bootstrap();
    await server.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: project.projectId } }, body: { limits: { max_concurrent_waits: 1 } } });
    const inbox = await server.createInbox({ tag: uniqueTag("slots") }, project);
    const wait = () => server.request("POST", "/v1/messages/wait", { apiKey: project.apiKey, body: { inbox: inbox.id, timeout_ms: 1000 } });
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await wait();
      // The subscribe's failure, each time: with the one slot kept, the second would be a 429.
      expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status: 500, code: "internal" });
    }
  });

  it("serves without caching API keys when the credential channel cannot be subscribed either", async () => {
    const project = await server.bootstrap();
    expect((await server.request("GET", "/v1/inboxes", { apiKey: project.apiKey })).status).toBe(200);
    expect(server.logs()).toContain("API keys are not cached: the credential channel could not be subscribed");
  });
});
