import { once } from "node:events";
import { hostname } from "node:os";
import {
  BullJobQueue,
  DatabaseJobQueue,
  InProcessBus,
  InProcessGreylist,
  InProcessRateLimits,
  InProcessWaitSlots,
  RedisBus,
  RedisGreylist,
  RedisRateLimits,
  RedisWaitSlots,
  createRedis,
  startBullWorker,
  startDatabaseWorker,
} from "@mailstop/messaging";
import type { Redis } from "ioredis";
import { type Dependencies, type ServiceModule, defineModule } from "../module";

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

function inProcessMessaging({ db, logger }: Dependencies<"db", never>): ServiceModule<"messaging"> {
  const queue = new DatabaseJobQueue(db);
  const bus = new InProcessBus(logger);
  return {
    start: async () => ({
      messaging: {
        kind: "in-process",
        queue,
        bus,
        slots: new InProcessWaitSlots(),
        greylist: new InProcessGreylist(),
        rateLimits: new InProcessRateLimits(),
        startWorker: (handlers, options) => startDatabaseWorker(queue, db, handlers, { concurrency: options.concurrency, logger, lockDurationMs: options.lockDurationMs }),
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
