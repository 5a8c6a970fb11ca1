import type { BlobStore } from "@mailstop/blob-store";
import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { HttpContribution } from "@mailstop/http";
import type { Logger } from "@mailstop/logging";
import type { Bus, JobQueue } from "@mailstop/messaging";
import type { Redis } from "ioredis";

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
  /** Set by the redis module. */
  redis?: { command: Redis; newBlocking: () => Redis; queue: JobQueue; bus: Bus };
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

export function requireRedis(context: RuntimeContext): NonNullable<RuntimeContext["redis"]> {
  if (!context.redis) throw new Error("the redis module must start before this module");
  return context.redis;
}
