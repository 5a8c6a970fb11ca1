import { createLogger } from "@mailstop/logging";
import { freePort, runRedisUrl, uniqueRedisPrefix } from "@mailstop/testkit";
import type { Redis } from "ioredis";
import { Queue } from "bullmq";
import { BullJobQueue, startBullWorker } from "./bull-job-queue";
import { PermanentJobError } from "./job-queue";
import type { ArrivalEvent, ParseMessageJob } from "./catalog";
import { createRedis } from "./redis-connection";
import { RedisBus } from "./redis-bus";

const logger = createLogger({ level: "silent" });
const connections: Redis[] = [];
const redis = (role: "command" | "blocking", url = runRedisUrl()) => {
  const connection = createRedis(url, role, logger);
  connections.push(connection);
  return connection;
};
afterAll(async () => {
  await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
});

const job = (transaction: string): ParseMessageJob => ({
  transaction_id: transaction,
  kind: "received",
  size: 10,
  received_at: new Date().toISOString(),
  envelope_from: "a@b.c",
  deliveries: [
    {
      project_id: "prj_x",
      project_key: "acme",
      raw_key: `projects/prj_x/tx/${transaction}/raw.eml`,
      recipients: [{ address: "acme.x@mailstop.test", inbox_id: "ibx_x", sim: null }],
    },
  ],
});

/** Resolves with the next value pushed, or rejects after `ms`. */
function deadline<T>(ms: number, register: (resolve: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

describe("BullMQ job queue", () => {
  it("delivers an enqueued job to the worker, once per job id", async () => {
    const prefix = uniqueRedisPrefix();
    const queue = new BullJobQueue(redis("command"), prefix, logger);
    const seen: string[] = [];
    let done: (id: string) => void = () => undefined;
    const worker = startBullWorker(
      redis("blocking"),
      prefix,
      {
        "parse-message": async (payload) => {
          seen.push(payload.transaction_id);
          done(payload.transaction_id);
        },
      },
      { concurrency: 2, logger },
    );
    try {
      const first = deadline<string>(5000, (resolve) => (done = resolve));
      await queue.enqueue("parse-message", job("tx-a"), { jobId: "tx-a" });
      await queue.enqueue("parse-message", job("tx-a"), { jobId: "tx-a" });
      expect(await first).toBe("tx-a");
      const second = deadline<string>(5000, (resolve) => (done = resolve));
      await queue.enqueue("parse-message", job("tx-b"), { jobId: "tx-b" });
      expect(await second).toBe("tx-b");
      expect(seen).toEqual(["tx-a", "tx-b"]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("retries a failing job with backoff until it succeeds", async () => {
    const prefix = uniqueRedisPrefix();
    const queue = new BullJobQueue(redis("command"), prefix, logger);
    const attempts: number[] = [];
    let done: (attempt: number) => void = () => undefined;
    const finished = deadline<number>(10_000, (resolve) => (done = resolve));
    const worker = startBullWorker(
      redis("blocking"),
      prefix,
      {
        "parse-message": async (_payload, attempt) => {
          attempts.push(attempt);
          if (attempt < 3) throw new Error("object store briefly unreachable");
          done(attempt);
        },
      },
      { concurrency: 1, logger },
    );
    try {
      await queue.enqueue("parse-message", job("tx-retry"), { jobId: "tx-retry" });
      expect(await finished).toBe(3);
      expect(attempts).toEqual([1, 2, 3]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("keeps a job that fails for good visible in the failed set, with its reason, instead of dropping it", async () => {
    const prefix = uniqueRedisPrefix();
    const queue = new BullJobQueue(redis("command"), prefix, logger);
    const attempts: number[] = [];
    const worker = startBullWorker(
      redis("blocking"),
      prefix,
      {
        "parse-message": async (_payload, attempt) => {
          attempts.push(attempt);
          throw new PermanentJobError("raw source is gone");
        },
      },
      { concurrency: 1, logger },
    );
    const inspect = new Queue("ingest", { connection: redis("blocking"), prefix });
    try {
      await queue.enqueue("parse-message", job("tx-gone"), { jobId: "tx-gone" });
      const failed = await deadline<{ id?: string; failedReason: string }>(10_000, (resolve) => {
        const poll = async () => {
          const [first] = await inspect.getFailed();
          if (first) resolve(first);
          else setTimeout(() => void poll(), 20);
        };
        void poll();
      });
      expect(failed).toMatchObject({ id: "tx-gone", failedReason: "raw source is gone" });
      expect(attempts).toEqual([1]);
    } finally {
      await worker.close();
      await inspect.close();
      await queue.close();
    }
  });

  it("refuses a payload that breaks its schema before it reaches Redis", async () => {
    const queue = new BullJobQueue(redis("command"), uniqueRedisPrefix(), logger);
    await expect(queue.enqueue("parse-message", { ...job("tx-c"), deliveries: [] })).rejects.toThrow(/invalid parse-message payload/);
    await queue.close();
  });

  it("fails fast, not hanging, when Redis is unreachable", async () => {
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const queue = new BullJobQueue(redis("command", dead), uniqueRedisPrefix(), logger);
    const started = Date.now();
    await expect(queue.enqueue("parse-message", job("tx-d"))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    await queue.close().catch(() => undefined);
  });
});

describe("Redis bus", () => {
  it("delivers an arrival to every subscriber of that inbox only, until it unsubscribes", async () => {
    const prefix = uniqueRedisPrefix();
    const bus = new RedisBus(redis("command"), () => redis("blocking"), prefix);
    const other: ArrivalEvent[] = [];
    let got: (event: ArrivalEvent) => void = () => undefined;
    const unsubscribe = await bus.subscribeArrivals("ibx_a", (event) => got(event));
    await bus.subscribeArrivals("ibx_b", (event) => other.push(event));
    const arrival = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
    await bus.publishArrival({ inbox_id: "ibx_a", message_id: "msg_1", seq: "7" });
    expect(await arrival).toEqual({ inbox_id: "ibx_a", message_id: "msg_1", seq: "7" });
    expect(other).toEqual([]);
    await unsubscribe();
    // After unsubscribing nothing more arrives. Redis delivers one connection's publishes in
    // order, so once the marker published after it is heard, ibx_a's would have been too.
    const heard: ArrivalEvent[] = [];
    got = (event) => heard.push(event);
    let heardMarker: (event: ArrivalEvent) => void = () => undefined;
    const marker = deadline<ArrivalEvent>(5000, (resolve) => (heardMarker = resolve));
    await bus.subscribeArrivals("ibx_c", (event) => heardMarker(event));
    await bus.publishArrival({ inbox_id: "ibx_a", message_id: "msg_2", seq: "8" });
    await bus.publishArrival({ inbox_id: "ibx_c", message_id: "msg_3", seq: "9" });
    await marker;
    expect(heard).toEqual([]);
    await bus.close();
  });
});
