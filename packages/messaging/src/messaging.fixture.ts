import { once } from "node:events";
import type { Logger } from "@mailstop/logging";
import { runRedisUrl } from "@mailstop/testkit";
import type { Redis } from "ioredis";
import type { CredentialChange, CredentialChangeListener } from "./index";
import { createRedis } from "./redis-connection";

// Test helpers of the messaging suites: the suite's connections, bounded waits for what an
// adapter tells, and a credential listener that records it.

/**
 * What a suite opens (Redis connections, and whatever it pushes on `cleanups`), closed after
 * it in the reverse order of opening, so a queue closes before the connection it uses.
 */
export function useSuiteConnections(logger: Logger) {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });
  const redis = (role: "command" | "blocking", url = runRedisUrl()): Redis => {
    const connection = createRedis(url, role, logger);
    cleanups.push(() => connection.quit().catch(() => connection.disconnect()));
    return connection;
  };
  /** A command connection once it is ready: it queues nothing while connecting (it fails fast instead). */
  const readyRedis = async (): Promise<Redis> => {
    const connection = redis("command");
    if (connection.status !== "ready") await once(connection, "ready");
    return connection;
  };
  return { cleanups, redis, readyRedis };
}

/** Resolves with the next value pushed, or rejects after `ms`. */
export function deadline<T>(ms: number, register: (resolve: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** Polls `probe` until it returns a value, for at most `ms`. */
export function polled<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  return deadline(ms, (resolve) => {
    const poll = async () => {
      const value = await probe();
      if (value !== undefined) resolve(value);
      else setTimeout(() => void poll(), 20);
    };
    void poll();
  });
}

/** A credential listener that records what it is told, in order. */
export function recordingListener(): CredentialChangeListener & { told: (CredentialChange | "lost" | "resumed")[]; next(ms: number): Promise<CredentialChange | "lost" | "resumed"> } {
  const told: (CredentialChange | "lost" | "resumed")[] = [];
  let waiting: ((value: CredentialChange | "lost" | "resumed") => void) | undefined;
  const tell = (value: CredentialChange | "lost" | "resumed") => {
    told.push(value);
    waiting?.(value);
    waiting = undefined;
  };
  return {
    told,
    changed: (change) => tell(change),
    lost: () => tell("lost"),
    resumed: () => tell("resumed"),
    next: (ms) => deadline(ms, (resolve) => (waiting = resolve)),
  };
}
