import type { BlobStore } from "@mailstop/blob-store";
import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { HttpContribution } from "@mailstop/http";
import type { Logger } from "@mailstop/logging";
import type { Bus, Greylist, JobHandlers, JobQueue, JobWorker, WaitSlots } from "@mailstop/messaging";

/** A running part of mailstop. Started in dependency order, stopped in reverse. */
export interface ServiceModule {
  readonly name: string;
  start(): Promise<void>;
  /**
   * Called on every module before any is stopped: ends long-lived work (event streams) that
   * would otherwise hold the HTTP listener open while it closes.
   */
  drain?(): Promise<void>;
  stop(): Promise<void>;
  /** True when the module can do its work (its dependencies are reachable). */
  ready(): Promise<boolean>;
}

/**
 * The job queue, the arrival bus, the wait allowance and the greylist: on Redis for the
 * fleet, in-process (jobs in the database) for the monolith without REDIS_URL. Nothing above
 * this interface knows which.
 */
export interface Messaging {
  /** "redis" or "in-process", for logs and readiness. */
  kind: "redis" | "in-process";
  queue: JobQueue;
  bus: Bus;
  slots: WaitSlots;
  greylist: Greylist;
  startWorker(handlers: JobHandlers, options: { concurrency: number; lockDurationMs: number }): JobWorker;
}

/** What modules share within one process; each field is set by the module that owns it. */
export interface RuntimeContext {
  config: Config;
  logger: Logger;
  /** Writes operator-facing text (first-start credentials) outside the structured log. */
  print: (text: string) => void;
  /** Set by the database module. */
  db?: Db;
  /** Routes that the api and waiter modules add to the one HTTP listener. */
  http: HttpContribution[];
  /** Set by the http-server module once it listens. */
  httpAddress?: { host: string; port: number };
  /** Set by the object-store module. */
  blobs?: BlobStore;
  /** Set by the messaging module: Redis and BullMQ, or their in-process stand-ins. */
  messaging?: Messaging;
  /** Set by the runner: the names of the started modules whose `ready()` is false (their engines unreachable). */
  notReady?: () => Promise<string[]>;
  /** Set by the smtp-edge module once it listens. */
  smtpPorts?: { receiving: number; capture: number };
}

export function requireDb(context: RuntimeContext): Db {
  if (!context.db) throw new Error("the database module must start before this module");
  return context.db;
}

export function requireBlobs(context: RuntimeContext): BlobStore {
  if (!context.blobs) throw new Error("the object-store module must start before this module");
  return context.blobs;
}

export function requireMessaging(context: RuntimeContext): Messaging {
  if (!context.messaging) throw new Error("the messaging module must start before this module");
  return context.messaging;
}
