import { once } from "node:events";
import { createLogger } from "@mailstop/logging";
import { startTestRedis, uniqueRedisPrefix } from "@mailstop/testkit";
import type { ArrivalEvent } from "./catalog";
import { deadline, recordingListener, useSuiteConnections } from "./messaging.fixture";
import { RedisBus } from "./redis-bus";

// The Redis bus where Redis itself misbehaves: its pub/sub connection killed, the server gone,
// a connection still in its handshake. Only the integration world has a Redis to break (most
// tests start one of their own, so killing its clients cuts no other test's bus); the port's
// contract, which every adapter passes, is messaging.contract.int.test.ts.

const logger = createLogger({ level: "silent" });
const { cleanups, redis, readyRedis } = useSuiteConnections(logger);

/**
 * A Redis of the test's own (killing pub/sub clients on the shared one would cut other tests'
 * buses) with a bus on it, and a ready admin connection to break it with. `elsewhere` makes
 * another process's bus on the same Redis and prefix.
 */
async function busOnOwnRedis() {
  const own = await startTestRedis();
  cleanups.push(() => own.kill());
  const publisher = redis("command", own.url);
  const admin = redis("command", own.url);
  await Promise.all([publisher, admin].map((connection) => (connection.status === "ready" ? undefined : once(connection, "ready"))));
  const prefix = uniqueRedisPrefix();
  const busOf = (connection: ReturnType<typeof redis>) => new RedisBus(connection, () => redis("blocking", own.url), prefix, logger);
  return { own, admin, bus: busOf(publisher), elsewhere: () => busOf(redis("command", own.url)) };
}

describe("Redis pub/sub credential changes when the subscriber connection drops", () => {
  it("tells the watchers at once, and again once the channel is live after the resubscribe", async () => {
    const { admin, bus, elsewhere: anotherProcess } = await busOnOwnRedis();
    // Another process's publisher: what this process hears only through its subscriber connection.
    const elsewhere = anotherProcess();
    try {
      const listener = recordingListener();
      await bus.watchCredentialChanges(listener);
      const lost = listener.next(5000);
      expect(Number(await admin.client("KILL", "TYPE", "pubsub"))).toBe(1);
      expect(await lost).toBe("lost");
      expect(await listener.next(10_000)).toBe("resumed");
      const heard = listener.next(5000);
      await elsewhere.publishCredentialChange({ scope: "project", id: "prj_9" });
      expect(await heard).toEqual({ scope: "project", id: "prj_9" });
      expect(listener.told).toEqual(["lost", "resumed", { scope: "project", id: "prj_9" }]);
    } finally {
      await bus.close();
      await elsewhere.close();
    }
  });
});

describe("Redis pub/sub credential watchers when Redis is gone", () => {
  it("stop watching at once, without waiting for Redis to come back (a shutdown must not hang)", async () => {
    const { own, bus } = await busOnOwnRedis();
    const listener = recordingListener();
    const unwatch = await bus.watchCredentialChanges(listener);
    const lost = listener.next(5000);
    await own.kill();
    expect(await lost).toBe("lost");
    await deadline<void>(2000, (resolve) => void unwatch().then(resolve));
    // Back, so that closing the connections does not wait for it either.
    await own.restart();
    await bus.close();
  });
});

describe("Redis pub/sub when its subscriber connection drops", () => {
  it(
    "subscribes every channel again and then tells its listeners, once per resubscribe",
    async () => {
      const { admin, bus } = await busOnOwnRedis();
      try {
        let got: (event: ArrivalEvent) => void = () => undefined;
        for (const inbox of ["ibx_r1", "ibx_r2", "ibx_r3"]) await bus.subscribeArrivals(inbox, (event) => got(event));
        const told: number[] = [];
        let resubscribed: () => void = () => undefined;
        bus.onResubscribed(() => (told.push(Date.now()), resubscribed()));
        const forgotten: number[] = [];
        bus.onResubscribed(() => forgotten.push(1))();

        const back = deadline<void>(10_000, (resolve) => (resubscribed = resolve));
        expect(Number(await admin.client("KILL", "TYPE", "pubsub"))).toBe(1);
        await back;
        // Told only once the channels are live: an arrival published now is heard, on every inbox.
        for (const inbox of ["ibx_r1", "ibx_r2", "ibx_r3"]) {
          const arrival = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
          await bus.publishArrival({ inbox_id: inbox, message_id: `msg_${inbox}`, seq: "1" });
          expect((await arrival).message_id).toBe(`msg_${inbox}`);
        }
        expect(told).toHaveLength(1);
        expect(forgotten).toEqual([]);
      } finally {
        await bus.close();
      }
    },
  );
});

describe("Redis pub/sub on a connection still in its handshake", () => {
  it(
    "subscribes only once the connection is ready, so the first subscription of a new process works",
    async () => {
      // ioredis writes a SUBSCRIBE at once while its ready check (INFO) is still to come, as the
      // command may run during loading; in subscriber mode it then refuses to send the INFO,
      // and the check fails with "Connection in subscriber mode". A bus asked for its first
      // subscription in that window must wait for the connection to be ready.
      const publisher = await readyRedis();
      const subscriber = redis("blocking");
      const bus = new RedisBus(publisher, () => subscriber, uniqueRedisPrefix(), logger);
      const errors: Error[] = [];
      subscriber.on("error", (error: Error) => errors.push(error));
      await once(subscriber, "connect");
      expect(subscriber.status).toBe("connect");
      try {
        let got: (event: ArrivalEvent) => void = () => undefined;
        const arrival = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
        await bus.subscribeArrivals("ibx_h", (event) => got(event));
        await bus.publishArrival({ inbox_id: "ibx_h", message_id: "msg_h", seq: "1" });
        expect((await arrival).message_id).toBe("msg_h");
        // Without the wait the ready check fails after the SUBSCRIBE (an error, then a reconnect
        // that loses what is published meanwhile); with it the connection is ready, first time.
        await deadline<void>(5000, (resolve) => (subscriber.status === "ready" ? resolve() : subscriber.once("ready", () => resolve())));
        expect(errors.map((error) => error.message)).toEqual([]);
      } finally {
        await bus.close();
      }
    },
  );
});
