import { once } from "node:events";
import { createLogger } from "@mailstop/logging";
import { CHANNELS, createRedis } from "@mailstop/messaging";
import { type TestRedis, TestEventStream, eventually, insertMessageRows, startTestRedis, uniqueTag, useTestServer } from "@mailstop/testkit";

// Redis pub/sub keeps nothing for an absent subscriber: an arrival published while the
// waiter's subscriber connection is down reaches no one. Once the bus listens again, held
// waits and open streams look at what was stored.

describe("arrivals lost while the arrival bus was away", () => {
  let redis: TestRedis;
  let admin: ReturnType<typeof createRedis>;
  const streams: TestEventStream[] = [];

  beforeAll(async () => {
    // A Redis of its own: killing pub/sub clients on the shared one would cut other tests' buses.
    redis = await startTestRedis();
    admin = createRedis(redis.url, "command", createLogger({ level: "silent" }));
    await once(admin, "ready");
  });
  const server = useTestServer(() => ({ mail: true, env: { REDIS_URL: redis.url } }));
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    admin.disconnect();
    await redis.kill();
  });

  it("end a held wait and reach an open stream once the bus has resubscribed", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("busdrop") });
    const channel = `${server.config.redisPrefix}:${CHANNELS.inboxArrivals(inbox.id)}`;
    // Without match: only a message stored after the wait began can end it.
    const waiting = server.request("POST", "/v1/messages/wait", { body: { inbox: inbox.address, timeout_ms: 30_000 } });
    // The wait is held once its inbox's channel is subscribed (it is held before it subscribes).
    await eventually(async () => (((await admin.pubsub("NUMSUB", channel)) as [string, number])[1] >= 1 ? true : null), { what: "the wait to subscribe" });
    const stream = new TestEventStream(`${server.url}/stream/v1/inboxes/${inbox.id}/events`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    streams.push(stream);
    await stream.next("open");

    // Stored with no arrival heard: as when it is published while no subscriber listens.
    const [id] = await insertMessageRows(server.db, inbox, server.project.projectId, 1);
    expect(Number(await admin.client("KILL", "TYPE", "pubsub"))).toBeGreaterThanOrEqual(1);

    const { json: ended } = await waiting;
    expect(ended).toMatchObject({ status: "matched", message: { id } });
    const frame = await stream.until((frames) => frames.find((f) => f.event === "message"), 15_000, "the stored message");
    expect(frame.data.id).toBe(id);
    expect(server.logs()).not.toContain("re-check of held waits");
  }, 60_000);
});
