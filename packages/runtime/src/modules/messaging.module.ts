import { once } from "node:events";
import { hostname } from "node:os";
import {
  BullJobQueue,
  DatabaseJobQueue,
  InProcessBus,
  InProcessWaitSlots,
  RedisBus,
  RedisWaitSlots,
  createRedis,
  startBullWorker,
  startDatabaseWorker,
} from "@mailstop/messaging";
import { InProcessGreylist, RedisGreylist } from "@mailstop/smtp-edge";
import type { Redis } from "ioredis";
import { type Messaging, type RuntimeContext, type ServiceModule, requireDb } from "../module";

const CONNECT_TIMEOUT_MS = 5000;

/**
 * The messaging engines of a process: Redis (BullMQ, pub/sub, leases) when REDIS_URL is set,
 * else the in-process stand-ins, with jobs kept in the database so a crash after the SMTP
 * edge's 250 loses nothing. The stand-ins serve one process only: the monolith.
 */
export function messagingModule(context: RuntimeContext): ServiceModule {
  return context.config.redisUrl === null ? inProcessMessaging(context) : redisMessaging(context, context.config.redisUrl);
}

function inProcessMessaging(context: RuntimeContext): ServiceModule {
  const db = requireDb(context);
  const queue = new DatabaseJobQueue(db);
  const bus = new InProcessBus(context.logger);
  const messaging: Messaging = {
    kind: "in-process",
    queue,
    bus,
    slots: new InProcessWaitSlots(),
    greylist: new InProcessGreylist(),
    startWorker: (handlers, options) => startDatabaseWorker(queue, db, handlers, { concurrency: options.concurrency, logger: context.logger, lockDurationMs: options.lockDurationMs }),
  };
  context.messaging = messaging;
  return {
    name: "messaging",
    start: async () => undefined,
    async stop() {
      await queue.close();
      await bus.close();
    },
    ready: async () => true,
  };
}

function redisMessaging(context: RuntimeContext, redisUrl: string): ServiceModule {
  const { redisPrefix } = context.config;
  const command = createRedis(redisUrl, "command", context.logger);
  const blocking: Redis[] = [];
  const newBlocking = () => {
    const connection = createRedis(redisUrl, "blocking", context.logger);
    blocking.push(connection);
    return connection;
  };
  const queue = new BullJobQueue(command, redisPrefix, context.logger);
  const bus = new RedisBus(command, newBlocking, redisPrefix, context.logger);
  context.messaging = {
    kind: "redis",
    queue,
    bus,
    slots: new RedisWaitSlots(command, redisPrefix, `${hostname()}:${process.pid}`),
    greylist: new RedisGreylist(command, redisPrefix),
    startWorker: (handlers, options) =>
      startBullWorker(newBlocking(), redisPrefix, handlers, { concurrency: options.concurrency, logger: context.logger, lockDurationMs: options.lockDurationMs }),
  };
  return {
    name: "messaging",
    async start() {
      if (command.status === "ready") return;
      const timeout = AbortSignal.timeout(CONNECT_TIMEOUT_MS);
      try {
        await once(command, "ready", { signal: timeout });
      } catch {
        throw new Error(`Redis at REDIS_URL did not answer within ${CONNECT_TIMEOUT_MS} ms.`);
      }
    },
    async stop() {
      await queue.close().catch(() => undefined);
      await bus.close();
      await Promise.all([command, ...blocking].map((connection) => connection.quit().catch(() => connection.disconnect())));
    },
    ready: async () => command.status === "ready",
  };
}
