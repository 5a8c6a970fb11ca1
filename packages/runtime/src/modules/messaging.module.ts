import { once } from "node:events";
import { hostname } from "node:os";
import {
  BullJobQueue,
  DatabaseJobQueue,
  InProcessBus,
  InProcessGreylist,
  InProcessRateLimits,
  InProcessWaitSlots,
  type JobHandlers,
  type JobName,
  type JobWorker,
  MemoryJobQueue,
  RedisBus,
  RedisGreylist,
  RedisRateLimits,
  RedisWaitSlots,
  SplitJobQueue,
  createRedis,
  startBullWorker,
  startDatabaseWorker,
  startMemoryWorker,
} from "@mailstop/messaging";
import type { Redis } from "ioredis";
import { type Dependencies, type Messaging, type ServiceModule, defineModule } from "../module";

const CONNECT_TIMEOUT_MS = 5000;

/**
 * The messaging engines of a process: Redis (BullMQ, pub/sub, leases) when REDIS_URL is set,
 * else the in-process stand-ins, with jobs kept in the database so a crash after the SMTP
 * edge's 250 loses nothing. The stand-ins serve one process only: the monolith.
 */
export const messagingModule = defineModule({
  name: "messaging",
  needs: ["db"],
  provides: ["messaging"],
  create(dependencies) {
    const { redisUrl } = dependencies.config;
    return redisUrl === null ? inProcessMessaging(dependencies) : redisMessaging(dependencies, redisUrl);
  },
});

/** The jobs the embedded monolith keeps in memory: the accept ledger's reconciler repairs a lost parse job. */
const IN_MEMORY_JOBS: ReadonlySet<JobName> = new Set(["parse-message"]);

/** How many parse jobs the embedded monolith holds in memory before the next wait in its database (see SplitJobQueue). */
const IN_MEMORY_JOB_LIMIT = 1000;

function inProcessMessaging({ db, config, logger }: Dependencies<"db", never>): ServiceModule<"messaging"> {
  const durable = new DatabaseJobQueue(db);
  // On PGlite (no DATABASE_URL) the monolith is its database's only process (the data
  // directory's lock), so it may keep parse jobs in memory; on a PostgreSQL another monolith
  // may share the jobs table.
  const memory = config.databaseUrl === null ? new MemoryJobQueue() : null;
  const queue = memory === null ? durable : new SplitJobQueue(memory, IN_MEMORY_JOBS, durable, IN_MEMORY_JOB_LIMIT);
  const bus = new InProcessBus(logger);
  // The database's worker takes every job, parse jobs too: those past the memory's limit, and
  // those an earlier version left in the table.
  const startWorker: Messaging["startWorker"] = (handlers, options) => {
    const databaseWorker = startDatabaseWorker(durable, db, handlers, { concurrency: options.concurrency, logger, lockDurationMs: options.lockDurationMs });
    if (memory === null) return databaseWorker;
    const inMemory: JobHandlers = {};
    for (const [name, handler] of Object.entries(handlers) as [JobName, never][]) if (IN_MEMORY_JOBS.has(name)) inMemory[name] = handler;
    const workers: JobWorker[] = [startMemoryWorker(memory, inMemory, { concurrency: options.concurrency, logger }), databaseWorker];
    return { close: async () => void (await Promise.all(workers.map((worker) => worker.close()))) };
  };
  return {
    start: async () => ({
      messaging: {
        kind: "in-process",
        queue,
        bus,
        slots: new InProcessWaitSlots(),
        greylist: new InProcessGreylist(),
        rateLimits: new InProcessRateLimits(),
        startWorker,
        parseJobsInMemory: memory !== null,
      },
    }),
    async stop() {
      await queue.close();
      await bus.close();
    },
    ready: async () => true,
  };
}

function redisMessaging({ config, logger }: Dependencies<never, never>, redisUrl: string): ServiceModule<"messaging"> {
  const { redisPrefix } = config;
  const connections: Redis[] = [];
  const connect = (role: "command" | "blocking") => {
    const connection = createRedis(redisUrl, role, logger);
    connections.push(connection);
    return connection;
  };
  let command: Redis | undefined;
  let queue: BullJobQueue | undefined;
  let bus: RedisBus | undefined;
  return {
    async start() {
      command = connect("command");
      if (command.status !== "ready") {
        try {
          await once(command, "ready", { signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) });
        } catch {
          throw new Error(`Redis at REDIS_URL did not answer within ${CONNECT_TIMEOUT_MS} ms.`);
        }
      }
      queue = new BullJobQueue(command, redisPrefix, logger);
      bus = new RedisBus(command, () => connect("blocking"), redisPrefix, logger);
      return {
        messaging: {
          kind: "redis",
          queue,
          bus,
          slots: new RedisWaitSlots(command, redisPrefix, `${hostname()}:${process.pid}`),
          greylist: new RedisGreylist(command, redisPrefix),
          rateLimits: new RedisRateLimits(command, redisPrefix),
          startWorker: (handlers, options) =>
            startBullWorker(connect("blocking"), redisPrefix, handlers, { concurrency: options.concurrency, logger, lockDurationMs: options.lockDurationMs }),
          parseJobsInMemory: false,
        },
      };
    },
    async stop() {
      await queue?.close().catch(() => undefined);
      await bus?.close();
      await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
    },
    // Connected is not enough: a frozen server keeps the socket open. The command connection
    // has no offline queue, so a PING while reconnecting fails at once.
    ready: async () => command?.status === "ready" && (await command.ping()) === "PONG",
  };
}
