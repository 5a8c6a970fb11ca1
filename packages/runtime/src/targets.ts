import { availableParallelism } from "node:os";
import type { Config } from "@mailstop/config";
import type { RunnableModule } from "./module";
import { dependencyOrder } from "./module-graph";
import { TARGETS, type Target } from "./target-names";
import { apiModule } from "./modules/api.module";
import { databaseModule } from "./modules/database.module";
import { firstStartModule } from "./modules/first-start.module";
import { httpServerModule } from "./modules/http-server.module";
import { messagingModule } from "./modules/messaging.module";
import { objectStoreModule } from "./modules/object-store.module";
import { opsServerModule } from "./modules/ops-server.module";
import { parserModule } from "./modules/parser.module";
import { parserThreadModule } from "./parser-thread/parser-thread.module";
import { secretsModule } from "./modules/secrets.module";
import { smtpEdgeModule } from "./modules/smtp-edge.module";
import { waiterModule } from "./modules/waiter.module";

/**
 * Every module; each declares what it needs and provides (see defineModule). All are imported
 * here, whatever the target, so a module file imports at its top only what is light (types,
 * the engines' adapters); the package of the service it runs (@mailstop/api, parser,
 * smtp-edge) it requires in `create` or `start`. A waiter then loads none of the API's, the
 * parser's or the SMTP edge's libraries: 39 MB less of its memory before it holds anything
 * (docs/performance.md "What a process loads").
 */
const MODULES = [
  opsServerModule,
  databaseModule,
  objectStoreModule,
  messagingModule,
  secretsModule,
  firstStartModule,
  parserModule,
  parserThreadModule,
  smtpEdgeModule,
  waiterModule,
  apiModule,
  httpServerModule,
] as const satisfies readonly RunnableModule[];

export type ModuleName = (typeof MODULES)[number]["name"];

// Every target names only modules this table knows.
TARGETS satisfies Record<Target, readonly ModuleName[]>;

export function moduleNamed(name: ModuleName): (typeof MODULES)[number] {
  return MODULES.find((module) => module.name === name)!;
}

/**
 * The three engine modules run on their real engine when its setting is present, else on an
 * embedded stand-in (PGlite, a directory, in-process messaging), which only the monolithic
 * target may use.
 */
const ENGINE_SETTINGS: Partial<Record<ModuleName, { setting: string; configured: (config: Config) => boolean }>> = {
  database: { setting: "DATABASE_URL", configured: (c) => c.databaseUrl !== null },
  "object-store": { setting: "S3_ENDPOINT", configured: (c) => c.s3 !== null },
  messaging: { setting: "REDIS_URL", configured: (c) => c.redisUrl !== null },
};

/** The modules `names` in start order: see dependencyOrder. */
function orderOf(names: readonly ModuleName[], target: Target): ModuleName[] {
  return dependencyOrder(names.map(moduleNamed), ` of target ${target}`).map((module) => module.name);
}

/** The start order of a target's modules, derived from what each needs. */
export function startOrder(target: Target): ModuleName[] {
  return orderOf(TARGETS[target], target);
}

/**
 * Settings the fleet's processes must share, which the monolith makes up for itself: the key
 * that seals webhook secrets (an api that sealed with one key and a parser that opens with
 * another would sign nothing).
 */
const SHARED_SETTINGS: Partial<Record<ModuleName, { setting: string; configured: (config: Config) => boolean }>> = {
  secrets: { setting: "MAILSTOP_SECRETS_KEY", configured: (c) => c.webhooks.secretsKey !== null },
};

/**
 * Modules a split target leaves out, with a warning, when their engine is not configured: the
 * api and waiter serve without an object store (message bodies then answer 503).
 */
const OPTIONAL: Partial<Record<Target, ReadonlySet<ModuleName>>> = {
  api: new Set(["object-store"]),
  waiter: new Set(["object-store"]),
};

/**
 * Below this many cores, `auto` keeps the parser on the main thread. On the benchmark's 2 cores,
 * shared with PostgreSQL, Redis and the load, the thread measured no faster on the directory
 * store and slower on s3rver (which needs the core the thread takes), for 85 MB more
 * (docs/performance.md "The parser thread on two cores").
 */
export const PARSER_THREAD_MIN_CORES = 4;

/**
 * Whether the monolith runs its parser on a worker thread: MAILSTOP_PARSER_THREAD (`auto`:
 * where `cores` reach PARSER_THREAD_MIN_CORES), and only where the thread can reach what the
 * parser shares with the rest of the process. The database and the messaging stand-ins live in
 * the main thread's memory (PGlite, in-process queues and bus); the directory object store is
 * files, which a thread opens as well as any process.
 */
function parsesOnThread(config: Config, embedded: readonly ModuleName[], cores: number): boolean {
  if (embedded.includes("database") || embedded.includes("messaging")) return false;
  return config.parserThread === "on" || (config.parserThread === "auto" && cores >= PARSER_THREAD_MIN_CORES);
}

export interface TargetPlan {
  order: ModuleName[];
  skipped: { module: ModuleName; missing: string[] }[];
  /** Engine modules running on their embedded stand-in (the monolith only). */
  embedded: ModuleName[];
}

/**
 * What a target runs under `config`. The monolith runs every module, on stand-ins for the
 * engines that are not configured (any mix works: each engine falls back on its own). A split
 * target shares state with the fleet's other processes, which stand-ins inside one process
 * cannot do: a missing engine setting is an error naming it, except the optional modules.
 */
export function planTarget(target: Target, config: Config, cores = availableParallelism()): TargetPlan {
  if (target === "all") {
    const embedded = (Object.keys(ENGINE_SETTINGS) as ModuleName[]).filter((name) => !ENGINE_SETTINGS[name]!.configured(config));
    const names: readonly ModuleName[] = parsesOnThread(config, embedded, cores) ? TARGETS.all.map((name) => (name === "parser" ? "parser-thread" : name)) : TARGETS.all;
    return { order: orderOf(names, target), skipped: [], embedded };
  }
  const skipped: TargetPlan["skipped"] = [];
  const kept: ModuleName[] = [];
  for (const name of TARGETS[target]) {
    const shared = SHARED_SETTINGS[name];
    if (shared !== undefined && !shared.configured(config)) {
      throw new Error(`${name} needs ${shared.setting}: set it, the same on every process of the fleet, to run target ${target} (only target all generates one).`);
    }
    const engine = ENGINE_SETTINGS[name];
    if (engine === undefined || engine.configured(config)) kept.push(name);
    else if (OPTIONAL[target]?.has(name)) skipped.push({ module: name, missing: [engine.setting] });
    else throw new Error(`${name} needs ${engine.setting}: set it to run target ${target} (only target all runs on embedded stand-ins).`);
  }
  return { order: orderOf(kept, target), skipped, embedded: [] };
}
