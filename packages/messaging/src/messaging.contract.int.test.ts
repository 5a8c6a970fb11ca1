import { once } from "node:events";
import { type Db, claimJobs, createDatabase, createEmbeddedDatabase, failedJobs, migrateToLatest, msUntilNextJob } from "@mailstop/db";
import { createLogger } from "@mailstop/logging";
import { createFreshDatabase, dropDatabase, freePort, runServerUrl, testWorld, uniqueRedisPrefix } from "@mailstop/testkit";
import { Queue } from "bullmq";
import { BullJobQueue, startBullWorker } from "./bull-job-queue";
import type { Bus, CredentialChangeListener } from "./bus";
import { type ArrivalEvent, CHANNELS, type CredentialChange } from "./catalog";
import { DatabaseJobQueue, startDatabaseWorker } from "./database-job-queue";
import { InProcessBus, InProcessWaitSlots } from "./in-process";
import { type JobHandlers, type JobQueue, type JobWorker, PermanentJobError } from "./job-queue";
import { MemoryJobQueue, startMemoryWorker } from "./memory-job-queue";
import { deadline, polled, recordingListener, useSuiteConnections } from "./messaging.fixture";
import { parseJobOf } from "./parse-job.fixture";
import { RedisBus } from "./redis-bus";
import { RedisWaitSlots, type WaitSlots } from "./wait-slots";

// One contract per port, run against every adapter this world has: Redis and BullMQ with the
// real engines, the in-process stand-ins (jobs in PGlite, and in PostgreSQL for a monolith
// given DATABASE_URL but no REDIS_URL) in both worlds.

const logger = createLogger({ level: "silent" });
const engines = testWorld() === "engines";
const { cleanups, redis, readyRedis } = useSuiteConnections(logger);

async function migrated(db: Db): Promise<Db> {
  cleanups.push(() => db.destroy());
  await migrateToLatest(db);
  return db;
}

/** A job queue adapter as the contract drives it. */
interface QueueAdapter {
  queue: JobQueue;
  work(handlers: JobHandlers, options?: { concurrency?: number; lockDurationMs?: number }): JobWorker;
  /** Ids (job keys) and reasons of the jobs failed for good. */
  failed(): Promise<{ id: string | null; reason: string | null }[]>;
}

function bullAdapter(): QueueAdapter {
  const prefix = uniqueRedisPrefix();
  const queue = new BullJobQueue(redis("command"), prefix, logger);
  const inspect = new Queue("ingest", { connection: redis("blocking"), prefix });
  cleanups.push(() => inspect.close(), () => queue.close());
  return {
    queue,
    work: (handlers, options = {}) => startBullWorker(redis("blocking"), prefix, handlers, { concurrency: options.concurrency ?? 2, logger, lockDurationMs: options.lockDurationMs ?? 30_000 }),
    failed: async () => (await inspect.getFailed()).map((job) => ({ id: job.id ?? null, reason: job.failedReason })),
  };
}

function databaseAdapter(db: Db): QueueAdapter {
  const queue = new DatabaseJobQueue(db);
  cleanups.push(() => queue.close());
  return {
    queue,
    work: (handlers, options = {}) => startDatabaseWorker(queue, db, handlers, { concurrency: options.concurrency ?? 2, logger, lockDurationMs: options.lockDurationMs ?? 30_000 }),
    failed: async () => (await failedJobs(db, "parse-message")).map((job) => ({ id: job.job_key, reason: job.last_error })),
  };
}

function memoryAdapter(): QueueAdapter {
  const queue = new MemoryJobQueue();
  cleanups.push(() => queue.close());
  return {
    queue,
    work: (handlers, options = {}) => startMemoryWorker(queue, handlers, { concurrency: options.concurrency ?? 2, logger }),
    failed: async () => queue.failed(),
  };
}

/** One database per file and engine (a PGlite takes seconds to start); each test uses its own job keys. */
const memo = <T>(create: () => Promise<T>) => {
  let value: Promise<T> | undefined;
  return () => (value ??= create());
};
const pglite = memo(() => migrated(createEmbeddedDatabase(null)));
// A database of its own: a monolith another file starts on the run's database has a worker on its jobs table.
const postgres = memo(async () => {
  const { name, url } = await createFreshDatabase(runServerUrl());
  cleanups.unshift(() => dropDatabase(runServerUrl(), name));
  return migrated(createDatabase(url, { maxConnections: 4 }));
});

/** The entries a world has: all of them with the real engines, the stand-ins' everywhere. */
const inWorld = <T>(entries: { engines?: T[]; everywhere: T[] }): T[] => [...(engines ? (entries.engines ?? []) : []), ...entries.everywhere];

const QUEUES = inWorld<[string, () => Promise<QueueAdapter>]>({
  engines: [
    ["BullMQ", async () => bullAdapter()],
    ["database queue on PostgreSQL", async () => databaseAdapter(await postgres())],
  ],
  everywhere: [
    ["database queue on PGlite", async () => databaseAdapter(await pglite())],
    // The embedded monolith's parse jobs (durable through the accept ledger, not the queue).
    ["memory queue", async () => memoryAdapter()],
  ],
});

const job = parseJobOf;

describe.each(QUEUES)("JobQueue contract: %s", (_name, create) => {
  let adapter: QueueAdapter;
  beforeEach(async () => {
    adapter = await create();
  });

  it("delivers an enqueued job to the worker, once per job id", async () => {
    const seen: string[] = [];
    let done: (id: string) => void = () => undefined;
    const worker = adapter.work({
      "parse-message": async (payload) => {
        seen.push(payload.transaction_id);
        done(payload.transaction_id);
      },
    });
    try {
      const first = deadline<string>(5000, (resolve) => (done = resolve));
      await adapter.queue.enqueue("parse-message", job("tx-a"), { jobId: "tx-a" });
      await adapter.queue.enqueue("parse-message", job("tx-a"), { jobId: "tx-a" });
      expect(await first).toBe("tx-a");
      const second = deadline<string>(5000, (resolve) => (done = resolve));
      await adapter.queue.enqueue("parse-message", job("tx-b"), { jobId: "tx-b" });
      expect(await second).toBe("tx-b");
      expect(seen).toEqual(["tx-a", "tx-b"]);
    } finally {
      await worker.close();
    }
  });

  it("retries a failing job with backoff until it succeeds", async () => {
    const attempts: number[] = [];
    const times: number[] = [];
    let done: (attempt: number) => void = () => undefined;
    const finished = deadline<number>(10_000, (resolve) => (done = resolve));
    const worker = adapter.work({
      "parse-message": async (_payload, attempt) => {
        attempts.push(attempt);
        times.push(Date.now());
        if (attempt < 3) throw new Error("object store briefly unreachable");
        done(attempt);
      },
    });
    try {
      await adapter.queue.enqueue("parse-message", job("tx-retry"), { jobId: "tx-retry" });
      expect(await finished).toBe(3);
      expect(attempts).toEqual([1, 2, 3]);
      // Exponential from 250 ms: the second retry waits about twice as long as the first.
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(200);
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(400);
    } finally {
      await worker.close();
    }
  });

  it("keeps a job that fails for good visible, with its reason, instead of dropping it", async () => {
    const attempts: number[] = [];
    const worker = adapter.work({
      "parse-message": async (_payload, attempt) => {
        attempts.push(attempt);
        throw new PermanentJobError("raw source is gone");
      },
    });
    try {
      await adapter.queue.enqueue("parse-message", job("tx-gone"), { jobId: "tx-gone" });
      const failed = await polled(10_000, async () => (await adapter.failed())[0]);
      expect(failed).toEqual({ id: "tx-gone", reason: "raw source is gone" });
      expect(attempts).toEqual([1]);
    } finally {
      await worker.close();
    }
  });

  it("runs a delayed job no sooner than its delay", async () => {
    let ran: (at: number) => void = () => undefined;
    const worker = adapter.work({ "publish-arrival": async () => ran(Date.now()) });
    try {
      const at = deadline<number>(10_000, (resolve) => (ran = resolve));
      const enqueued = Date.now();
      await adapter.queue.enqueue("publish-arrival", { inbox_id: "ibx_d", message_id: "msg_d" }, { delayMs: 700 });
      expect((await at) - enqueued).toBeGreaterThanOrEqual(650);
    } finally {
      await worker.close();
    }
  });

  it("counts the jobs of a queue waiting to run, due or delayed, until a worker takes them", async () => {
    expect(await adapter.queue.depth("ingest")).toBe(0);
    await adapter.queue.enqueue("parse-message", job("tx-depth"), { jobId: "tx-depth" });
    await adapter.queue.enqueue("publish-arrival", { inbox_id: "ibx_depth", message_id: "msg_depth" }, { delayMs: 60_000 });
    expect(await adapter.queue.depth("ingest")).toBe(2);
    expect(await adapter.queue.depth("webhooks")).toBe(0);
    const worker = adapter.work({ "parse-message": async () => undefined });
    try {
      await polled(10_000, async () => ((await adapter.queue.depth("ingest")) === 1 ? true : undefined));
    } finally {
      await worker.close();
    }
  });

  it("repeats a scheduled job", async () => {
    const runs: number[] = [];
    const worker = adapter.work({ reap: async () => void runs.push(Date.now()) });
    try {
      await adapter.queue.schedule("reap", {}, 300);
      await polled(10_000, async () => (runs.length >= 3 ? runs.length : undefined));
    } finally {
      await worker.close();
    }
  });

  it("requeues a job by id: nothing while one is pending, a fresh run once it failed for good or completed", async () => {
    const runs: string[] = [];
    let failFirst = true;
    const ran = (id: string, times: number) => polled(10_000, async () => (runs.filter((r) => r === id).length >= times ? true : undefined));
    // A sentinel enqueued after the requeues runs after them (one job at a time, in order).
    const sentinel = async (id: string) => {
      await adapter.queue.enqueue("parse-message", job(id), { jobId: id });
      return id;
    };
    await adapter.queue.enqueue("parse-message", job("tx-rq"), { jobId: "tx-rq" });
    await adapter.queue.requeue("parse-message", job("tx-rq"), "tx-rq");
    const first = await sentinel("tx-rq-s1");
    const worker = adapter.work(
      {
        "parse-message": async (payload) => {
          runs.push(payload.transaction_id);
          if (payload.transaction_id === "tx-rq" && failFirst) {
            failFirst = false;
            throw new PermanentJobError("fails for good once");
          }
        },
      },
      { concurrency: 1 },
    );
    try {
      await ran(first, 1);
      expect(runs).toEqual(["tx-rq", first]);
      await adapter.queue.requeue("parse-message", job("tx-rq"), "tx-rq");
      await ran(await sentinel("tx-rq-s2"), 1);
      await adapter.queue.requeue("parse-message", job("tx-rq"), "tx-rq");
      await ran(await sentinel("tx-rq-s3"), 1);
      expect(runs).toEqual(["tx-rq", first, "tx-rq", "tx-rq-s2", "tx-rq", "tx-rq-s3"]);
    } finally {
      await worker.close();
    }
  });

  it("refuses a payload that breaks its schema before it reaches the engine", async () => {
    await expect(adapter.queue.enqueue("parse-message", { ...job("tx-c"), deliveries: [] })).rejects.toThrow(/invalid parse-message payload/);
  });
});

describe.each(inWorld<[string, () => Promise<Db>]>({ engines: [["PostgreSQL", postgres]], everywhere: [["PGlite", pglite]] }))("database queue specifics on %s", (_name, database) => {
  it("retries the job of a worker that died holding it, once its claim runs out", async () => {
    const db = await database();
    const queue = new DatabaseJobQueue(db);
    await queue.enqueue("parse-message", job("tx-crash"), { jobId: "tx-crash" });
    // A worker claims it for 500 ms and is never heard of again. The clock starts before the
    // claim: its 500 ms count from the claim's statement, which a loaded machine may answer
    // tens of milliseconds later.
    const claimedAt = Date.now();
    expect(await claimJobs(db, ["parse-message"], 10, 500)).toHaveLength(1);
    let ran: (attempt: number) => void = () => undefined;
    const worker = startDatabaseWorker(queue, db, { "parse-message": async (_payload, attempt) => ran(attempt) }, { concurrency: 1, logger, lockDurationMs: 5000 });
    try {
      const attempt = await deadline<number>(10_000, (resolve) => (ran = resolve));
      expect(attempt).toBe(2);
      expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(450);
    } finally {
      await worker.close();
    }
  });

  it("tells an idle worker how long it may sleep: no time at all for an empty queue (it waits for an enqueue), the delay of a delayed job, 0 for a due one", async () => {
    const db = await database();
    const queue = new DatabaseJobQueue(db);
    // SQL's greatest(0, NULL) is 0: an empty queue once read as "due now", and idle workers looked again every 5 ms.
    expect(await msUntilNextJob(db, ["parse-message"])).toBeNull();
    await queue.enqueue("parse-message", job("tx-later"), { jobId: "tx-later", delayMs: 60_000 });
    const wait = await msUntilNextJob(db, ["parse-message"]);
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    await queue.enqueue("parse-message", job("tx-now"), { jobId: "tx-now" });
    expect(await msUntilNextJob(db, ["parse-message"])).toBe(0);
  });

  it("hands an unfinished job back on close, its attempt refunded, for the next worker", async () => {
    const db = await database();
    const queue = new DatabaseJobQueue(db);
    let started: () => void = () => undefined;
    const first = startDatabaseWorker(queue, db, { "parse-message": () => (started(), new Promise<void>(() => undefined)) }, { concurrency: 1, logger, lockDurationMs: 60_000, closeGraceMs: 200 });
    const running = deadline<void>(5000, (resolve) => (started = resolve));
    await queue.enqueue("parse-message", job("tx-stuck"), { jobId: "tx-stuck" });
    await running;
    await first.close();
    let ran: (attempt: number) => void = () => undefined;
    const second = startDatabaseWorker(queue, db, { "parse-message": async (_payload, attempt) => ran(attempt) }, { concurrency: 1, logger, lockDurationMs: 60_000 });
    try {
      expect(await deadline<number>(5000, (resolve) => (ran = resolve))).toBe(1);
    } finally {
      await second.close();
    }
  });
});

describe.each(
  inWorld<[string, () => Bus]>({
    engines: [["Redis pub/sub", () => new RedisBus(redis("command"), () => redis("blocking"), uniqueRedisPrefix(), logger)]],
    everywhere: [["in-process", () => new InProcessBus(logger)]],
  }),
)("Bus contract: %s", (_name, create) => {
  it("delivers an arrival to every subscriber of that inbox only, until it unsubscribes", async () => {
    const bus = create();
    const other: ArrivalEvent[] = [];
    let got: (event: ArrivalEvent) => void = () => undefined;
    const unsubscribe = await bus.subscribeArrivals("ibx_a", (event) => got(event));
    await bus.subscribeArrivals("ibx_b", (event) => other.push(event));
    const arrival = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
    await bus.publishArrival({ inbox_id: "ibx_a", message_id: "msg_1", seq: "7" });
    expect(await arrival).toEqual({ inbox_id: "ibx_a", message_id: "msg_1", seq: "7" });
    expect(other).toEqual([]);
    await unsubscribe();
    // After unsubscribing nothing more arrives. Both buses deliver one publisher's events in
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

  it("tells a resubscribe listener nothing while its connection holds", async () => {
    const bus = create();
    const told: number[] = [];
    bus.onResubscribed(() => told.push(1));
    let got: (event: ArrivalEvent) => void = () => undefined;
    const arrival = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
    await bus.subscribeArrivals("ibx_q", (event) => got(event));
    await bus.publishArrival({ inbox_id: "ibx_q", message_id: "msg_q", seq: "1" });
    expect((await arrival).message_id).toBe("msg_q");
    expect(told).toEqual([]);
    await bus.close();
  });

  it("keeps delivering to the other listeners when one throws", async () => {
    const bus = create();
    await bus.subscribeArrivals("ibx_t", () => {
      throw new Error("listener bug");
    });
    let got: (event: ArrivalEvent) => void = () => undefined;
    const arrival = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
    await bus.subscribeArrivals("ibx_t", (event) => got(event));
    await bus.publishArrival({ inbox_id: "ibx_t", message_id: "msg_t", seq: "1" });
    expect((await arrival).message_id).toBe("msg_t");
    await bus.close();
  });
});

/** A bus as the malformed-arrival contract drives it: what it logged, and a way to put any value on an inbox's channel. */
interface BusUnderTest {
  bus: Bus;
  warnings(): string[];
  /** Puts `value` where the bus receives arrivals for `inboxId`, bypassing the publisher's types. */
  inject(inboxId: string, value: unknown): Promise<void>;
  /** Puts `value` where the bus receives credential changes. */
  injectCredentialChange(value: unknown): Promise<void>;
}

/** A logger that keeps the messages of its warn lines. */
function keptWarnings(): { logger: ReturnType<typeof createLogger>; warnings(): string[] } {
  const lines: string[] = [];
  return {
    logger: createLogger({ level: "warn", destination: { write: (line: string) => void lines.push(line) } }),
    warnings: () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
  };
}

describe.each(
  inWorld<[string, () => Promise<BusUnderTest>]>({
    engines: [
      [
        "Redis pub/sub",
        async () => {
          const kept = keptWarnings();
          const prefix = uniqueRedisPrefix();
          // Another process's publisher, as far as the bus can tell: raw text on the channel.
          const publisher = await readyRedis();
          const bus = new RedisBus(publisher, () => redis("blocking"), prefix, kept.logger);
          const raw = async (channel: string, value: unknown) => {
            await publisher.publish(`${prefix}:${channel}`, typeof value === "string" ? value : JSON.stringify(value));
          };
          return {
            bus,
            warnings: kept.warnings,
            inject: (inboxId: string, value: unknown) => raw(CHANNELS.inboxArrivals(inboxId), value),
            injectCredentialChange: (value: unknown) => raw(CHANNELS.credentialChanges, value),
          };
        },
      ],
    ],
    everywhere: [
      [
        "in-process",
        async () => {
          const kept = keptWarnings();
          const bus = new InProcessBus(kept.logger);
          return {
            bus,
            warnings: kept.warnings,
            inject: (_inboxId: string, value: unknown) => bus.publishArrival(value as ArrivalEvent),
            injectCredentialChange: (value: unknown) => bus.publishCredentialChange(value as CredentialChange),
          };
        },
      ],
    ],
  }),
)("Bus contract, malformed events: %s", (name, create) => {
  const malformed: unknown[] = [
    { inbox_id: "ibx_m", message_id: "msg_no_seq" },
    { inbox_id: "ibx_m", message_id: 42, seq: "1" },
    { inbox_id: "ibx_m", message_id: "msg_bad_seq", seq: "1e3" },
    { inbox_id: "", message_id: "msg_no_inbox", seq: "1" },
    null,
    [],
    ...(name === "Redis pub/sub" ? ["not json {"] : []),
  ];

  it("drops each malformed event with a warning; the subscriber keeps listening and hears the valid event after them, and only it", async () => {
    const { bus, warnings, inject } = await create();
    const heard: unknown[] = [];
    let got: (event: ArrivalEvent) => void = () => undefined;
    const valid = deadline<ArrivalEvent>(5000, (resolve) => (got = resolve));
    await bus.subscribeArrivals("ibx_m", (event) => {
      heard.push(event);
      if (event.message_id === "msg_valid") got(event);
    });
    for (const value of malformed) await inject("ibx_m", value);
    // Published after them on the same connection: once it is heard, they were received before it.
    await bus.publishArrival({ inbox_id: "ibx_m", message_id: "msg_valid", seq: "12" });
    expect(await valid).toEqual({ inbox_id: "ibx_m", message_id: "msg_valid", seq: "12" });
    expect(heard).toEqual([{ inbox_id: "ibx_m", message_id: "msg_valid", seq: "12" }]);
    expect(warnings()).toEqual(malformed.map(() => "malformed arrival event dropped"));
    await bus.close();
  });

  it("drops each malformed credential change with a warning; the watcher hears the valid change after them, and only it", async () => {
    const { bus, warnings, injectCredentialChange } = await create();
    const changes: unknown[] = [{ scope: "api_key" }, { scope: "inbox", id: "ibx_1" }, { scope: "project", id: "" }, null, ...(name === "Redis pub/sub" ? ["not json {"] : [])];
    const listener = recordingListener();
    await bus.watchCredentialChanges(listener);
    for (const value of changes) await injectCredentialChange(value);
    const heard = listener.next(5000);
    await injectCredentialChange({ scope: "organisation", id: "org_valid" });
    expect(await heard).toEqual({ scope: "organisation", id: "org_valid" });
    expect(listener.told).toEqual([{ scope: "organisation", id: "org_valid" }]);
    expect(warnings()).toEqual(changes.map(() => "malformed credential change dropped"));
    await bus.close();
  });
});

describe.each(
  inWorld<[string, () => { publisher: Bus; other: Bus }]>({
    engines: [
      [
        "Redis pub/sub",
        () => {
          // Two processes of one installation: two buses on one prefix.
          const prefix = uniqueRedisPrefix();
          const bus = () => new RedisBus(redis("command"), () => redis("blocking"), prefix, logger);
          return { publisher: bus(), other: bus() };
        },
      ],
    ],
    // One process holds every listener: the same bus.
    everywhere: [["in-process", () => ((bus) => ({ publisher: bus, other: bus }))(new InProcessBus(logger))]],
  }),
)("Bus contract, credential changes: %s", (_name, create) => {
  it("tells every watcher of a change, the publishing process before the publish returns, and nothing after unwatching", async () => {
    const { publisher, other } = create();
    const own = recordingListener();
    const elsewhere = recordingListener();
    const gone = recordingListener();
    await publisher.watchCredentialChanges(own);
    await other.watchCredentialChanges(elsewhere);
    const unwatch = await other.watchCredentialChanges(gone);

    const heardElsewhere = elsewhere.next(5000);
    await publisher.publishCredentialChange({ scope: "api_key", id: "key_1" });
    expect(own.told[0]).toEqual({ scope: "api_key", id: "key_1" });
    expect(await heardElsewhere).toEqual({ scope: "api_key", id: "key_1" });
    expect(gone.told).toEqual([{ scope: "api_key", id: "key_1" }]);

    await unwatch();
    const heardAgain = elsewhere.next(5000);
    await publisher.publishCredentialChange({ scope: "organisation", id: "org_2" });
    expect(await heardAgain).toEqual({ scope: "organisation", id: "org_2" });
    expect(gone.told).toEqual([{ scope: "api_key", id: "key_1" }]);
    // The connection held throughout: nobody was told of a loss.
    for (const listener of [own, elsewhere]) expect(listener.told.filter((told) => typeof told === "string")).toEqual([]);
    await publisher.close();
    await other.close();
  });
});

describe.each(
  inWorld<[string, () => Promise<WaitSlots>]>({
    engines: [["Redis leases", async () => new RedisWaitSlots(await readyRedis(), uniqueRedisPrefix(), "test")]],
    everywhere: [["in-process", async () => new InProcessWaitSlots()]],
  }),
)("WaitSlots contract: %s", (_name, create) => {
  it("gives at most `limit` slots per project, and a released slot (once) back", async () => {
    const slots = await create();
    const a = await slots.acquire("prj_1", 2);
    const b = await slots.acquire("prj_1", 2);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(await slots.acquire("prj_1", 2)).toBeNull();
    expect(await slots.acquire("prj_2", 2)).not.toBeNull();
    await a!.release();
    await a!.release();
    expect(await slots.acquire("prj_1", 2)).not.toBeNull();
    expect(await slots.acquire("prj_1", 2)).toBeNull();
  });
});

describe("BullMQ when Redis is unreachable", () => {
  // Needs no Redis of its own (its Redis is a port nothing listens on): it runs in every world.
  it("fails an enqueue fast, not hanging", async () => {
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const queue = new BullJobQueue(redis("command", dead), uniqueRedisPrefix(), logger);
    const started = Date.now();
    await expect(queue.enqueue("parse-message", job("tx-d"))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    await queue.close().catch(() => undefined);
  });
});

