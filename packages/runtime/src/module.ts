import type { FirstStart } from "@mailstop/api";
import type { BlobStore } from "@mailstop/blob-store";
import type { Config } from "@mailstop/config";
import type { Db } from "@mailstop/db";
import type { HttpContribution } from "@mailstop/http";
import type { Logger } from "@mailstop/logging";
import type { Metrics } from "@mailstop/metrics";
import type { Bus, Greylist, JobHandlers, JobQueue, JobWorker, RateLimits, WaitSlots } from "@mailstop/messaging";
import type { SecretBox } from "@mailstop/webhooks";
import type { ParserThread } from "./parser-thread/parser-thread";

/**
 * The job queue, the arrival bus, the wait allowance, the greylist and the request rate
 * buckets: on Redis for the
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
  /** Per-key request buckets of the HTTP routes (docs/decisions.md "Rate limits"). */
  rateLimits: RateLimits;
  startWorker(handlers: JobHandlers, options: { concurrency: number; lockDurationMs: number }): JobWorker;
  /**
   * Parse jobs live in this process's memory and the process is its database's only one (the
   * embedded monolith on PGlite): at start every transaction left open is an orphan of a crash,
   * to be parsed again at once, not after the reconciler's grace.
   */
  parseJobsInMemory: boolean;
}

/**
 * What modules hand one another, by name (the module that provides each in brackets). A module
 * lists the names it `needs`; the module providing each starts before it and gives it the
 * value. Sharing something new between modules starts with a name here.
 */
export interface Provided {
  /** The database, migrated (database). */
  db: Db;
  /** The object store, its bucket or directory ready (object-store). */
  blobs: BlobStore;
  /** The signed downloads of the directory object store; none on S3 (object-store). */
  downloadRoutes: HttpContribution[];
  /** Seals and opens webhook secrets (secrets). */
  secrets: SecretBox;
  /** Redis and BullMQ, or their in-process stand-ins (messaging). */
  messaging: Messaging;
  /** The ports the SMTP listeners bound (smtp-edge). */
  smtpPorts: { receiving: number; capture: number };
  /** The waits and event streams (waiter). */
  waiterRoutes: HttpContribution[];
  /** Everything else of the public and admin API (api). */
  apiRoutes: HttpContribution[];
  /** Where the HTTP listener listens (http-server). */
  httpAddress: { host: string; port: number };
  /** Where the operations listener (/health, /ready, /metrics) listens (ops-server). */
  opsAddress: { host: string; port: number };
  /** The monolith's parser thread, when it runs one (parser-thread). */
  parserThread: ParserThread;
  /** What the monolith's start did about projects: created `local`, or found its projects (first-start). */
  firstStart: FirstStart;
}

export type Provision = keyof Provided;

/** What the runner gives every module, whatever it needs. */
export interface RuntimeContext {
  config: Config;
  logger: Logger;
  /** This process's Prometheus metrics, served as GET /metrics (docs/operator.md "Metrics"). */
  metrics: Metrics;
  /** Writes operator-facing text (first-start credentials) outside the structured log. */
  print: (text: string) => void;
  /**
   * The target's modules whose `ready()` is false (their engines unreachable, or no answer
   * within READY_DEADLINE_MS); ["starting"] until all have started, ["stopping"] from the
   * first moment of a stop.
   */
  notReady(): Promise<string[]>;
}

/**
 * A factory's argument: the runtime context, the value of each name the module needs, and of
 * each it may use (null when no module of the target provides it).
 */
export type Dependencies<Needs extends Provision, Optional extends Provision> = RuntimeContext &
  Pick<Provided, Needs> & { [Name in Optional]: Provided[Name] | null };

/** A running part of mailstop. Started in dependency order, stopped in reverse. */
export interface ServiceModule<Provides extends Provision = never> {
  /** Opens the module's resources and resolves with what it provides to the modules after it. */
  start(): Promise<[Provides] extends [never] ? void : Pick<Provided, Provides>>;
  /**
   * Called on every module before any is stopped: ends long-lived work (event streams) that
   * would otherwise hold the HTTP listener open while it closes.
   */
  drain?(): Promise<void>;
  /** Closes what `start` opened; also called after a `start` that failed part-way. */
  stop(): Promise<void>;
  /** True when the module can do its work (its dependencies are reachable). */
  ready(): Promise<boolean>;
}

/**
 * A module: its name (as targets list it), the names it needs and may use, the names it
 * provides, and its factory. The factory is called once everything the module needs has
 * started, and only builds: resources are opened by `start`.
 */
export interface ModuleDefinition<Name extends string, Needs extends Provision, Optional extends Provision, Provides extends Provision> {
  name: Name;
  needs: readonly Needs[];
  /** Used when the target has a module providing them (the api without an object store). */
  optional?: readonly Optional[];
  provides?: readonly Provides[];
  create(dependencies: Dependencies<Needs, Optional>): ServiceModule<Provides>;
}

/** Types a module from its lists: the factory receives exactly what `needs` and `optional` name, `start` must resolve with what `provides` names. */
export function defineModule<Name extends string, Needs extends Provision = never, Optional extends Provision = never, Provides extends Provision = never>(
  definition: ModuleDefinition<Name, Needs, Optional, Provides>,
): ModuleDefinition<Name, Needs, Optional, Provides> {
  return definition;
}

/** A module as the runner handles it, whatever it needs and provides. */
export interface RunnableModule {
  name: string;
  needs: readonly Provision[];
  optional?: readonly Provision[];
  provides?: readonly Provision[];
  create(dependencies: Dependencies<Provision, Provision>): Omit<ServiceModule, "start"> & { start(): Promise<Partial<Provided> | void> };
}
