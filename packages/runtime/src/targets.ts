import type { Config } from "@mailstop/config";
import type { RuntimeContext, ServiceModule } from "./module";
import { TARGETS, type Target } from "./target-names";
import { apiModule } from "./modules/api.module";
import { databaseModule } from "./modules/database.module";
import { firstStartModule } from "./modules/first-start.module";
import { httpServerModule } from "./modules/http-server.module";
import { messagingModule } from "./modules/messaging.module";
import { objectStoreModule } from "./modules/object-store.module";
import { parserModule } from "./modules/parser.module";
import { smtpEdgeModule } from "./modules/smtp-edge.module";
import { waiterModule } from "./modules/waiter.module";

/**
 * Every module and the modules it needs started before it. The three engine modules run on
 * their real engine when its setting is present, else on an embedded stand-in (PGlite, a
 * directory, in-process messaging), which only the monolithic target may use.
 */
const MODULES = {
  database: { needs: [], create: databaseModule },
  "object-store": { needs: [], create: objectStoreModule },
  messaging: { needs: ["database"], create: messagingModule },
  "first-start": { needs: ["database"], create: firstStartModule },
  parser: { needs: ["database", "object-store", "messaging"], create: parserModule },
  "smtp-edge": { needs: ["database", "object-store", "messaging"], create: smtpEdgeModule },
  waiter: { needs: ["database", "messaging"], create: waiterModule },
  api: { needs: ["database"], create: apiModule },
  // Last: it serves the routes the api and waiter modules added.
  "http-server": { needs: ["database"], create: httpServerModule },
} as const satisfies Record<string, { needs: readonly string[]; create: (context: RuntimeContext) => ServiceModule }>;

/** The setting that puts an engine module on its real engine. */
const ENGINE_SETTINGS: Partial<Record<ModuleName, { setting: string; configured: (config: Config) => boolean }>> = {
  database: { setting: "DATABASE_URL", configured: (c) => c.databaseUrl !== null },
  "object-store": { setting: "S3_ENDPOINT", configured: (c) => c.s3 !== null },
  messaging: { setting: "REDIS_URL", configured: (c) => c.redisUrl !== null },
};

export type ModuleName = keyof typeof MODULES;

// Every target names only modules this table knows.
TARGETS satisfies Record<Target, readonly ModuleName[]>;

/**
 * The start order of a target: each module after the modules it needs, otherwise in the
 * order the target lists them. Arrays only, never map iteration, so the order is fixed.
 */
export function startOrder(target: Target): ModuleName[] {
  return orderOf(TARGETS[target]);
}

function orderOf(roots: readonly ModuleName[]): ModuleName[] {
  const order: ModuleName[] = [];
  const visit = (name: ModuleName, path: readonly ModuleName[]): void => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`module dependency cycle: ${[...path, name].join(" -> ")}`);
    for (const need of MODULES[name].needs) visit(need, [...path, name]);
    order.push(name);
  };
  for (const name of roots) visit(name, []);
  return order;
}

/**
 * Modules a split target leaves out, with a warning, when their engine is not configured: the
 * api and waiter serve without an object store (message bodies then answer 503).
 */
const OPTIONAL: Partial<Record<Target, ReadonlySet<ModuleName>>> = {
  api: new Set(["object-store"]),
  waiter: new Set(["object-store"]),
};

/** The engine settings a module and everything it needs are missing. */
function missingSettings(name: ModuleName, config: Config): string[] {
  const missing = new Set<string>();
  const engine = ENGINE_SETTINGS[name];
  if (engine !== undefined && !engine.configured(config)) missing.add(engine.setting);
  for (const need of MODULES[name].needs) for (const setting of missingSettings(need, config)) missing.add(setting);
  return [...missing];
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
export function planTarget(target: Target, config: Config): TargetPlan {
  if (target === "all") {
    const embedded = (Object.keys(ENGINE_SETTINGS) as ModuleName[]).filter((name) => !ENGINE_SETTINGS[name]!.configured(config));
    return { order: orderOf(TARGETS.all), skipped: [], embedded };
  }
  const skipped: TargetPlan["skipped"] = [];
  const roots: ModuleName[] = [];
  for (const name of TARGETS[target]) {
    const missing = missingSettings(name, config);
    if (missing.length === 0) roots.push(name);
    else if (OPTIONAL[target]?.has(name)) skipped.push({ module: name, missing });
    else throw new Error(`${name} needs ${missing.join(", ")}: set ${missing.length === 1 ? "it" : "them"} to run target ${target} (only target all runs on embedded stand-ins).`);
  }
  return { order: orderOf(roots), skipped, embedded: [] };
}

export function createModule(name: ModuleName, context: RuntimeContext): ServiceModule {
  return MODULES[name].create(context);
}
