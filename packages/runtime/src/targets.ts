import type { Config } from "@mailstop/config";
import type { RuntimeContext, ServiceModule } from "./module";
import { apiModule } from "./modules/api.module";
import { databaseModule } from "./modules/database.module";
import { firstStartModule } from "./modules/first-start.module";
import { httpServerModule } from "./modules/http-server.module";
import { objectStoreModule } from "./modules/object-store.module";
import { parserModule } from "./modules/parser.module";
import { redisModule } from "./modules/redis.module";
import { smtpEdgeModule } from "./modules/smtp-edge.module";
import { waiterModule } from "./modules/waiter.module";

type Requirement = (config: Config) => string[];
const none: Requirement = () => [];

/**
 * Every module: the modules it needs started before it, and the settings it cannot run
 * without (reported by name when missing).
 */
const MODULES = {
  database: { needs: [], requires: (c: Config) => (c.databaseUrl === null ? ["DATABASE_URL"] : []), create: databaseModule },
  "object-store": { needs: [], requires: (c: Config) => (c.s3 === null ? ["S3_ENDPOINT"] : []), create: objectStoreModule },
  redis: { needs: [], requires: (c: Config) => (c.redisUrl === null ? ["REDIS_URL"] : []), create: redisModule },
  "first-start": { needs: ["database"], requires: none, create: firstStartModule },
  parser: { needs: ["database", "object-store", "redis"], requires: none, create: parserModule },
  "smtp-edge": { needs: ["database", "object-store", "redis"], requires: none, create: smtpEdgeModule },
  waiter: { needs: ["database", "redis"], requires: none, create: waiterModule },
  api: { needs: ["database"], requires: none, create: apiModule },
  // Last: it serves the routes the api and waiter modules added.
  "http-server": { needs: ["database"], requires: none, create: httpServerModule },
} as const satisfies Record<string, { needs: readonly string[]; requires: Requirement; create: (context: RuntimeContext) => ServiceModule }>;

export type ModuleName = keyof typeof MODULES;

/** The targets of `mailstop serve --target`: each lists its modules in start order. */
export const TARGETS = {
  api: ["database", "object-store", "api", "http-server"],
  waiter: ["database", "object-store", "redis", "waiter", "http-server"],
  "smtp-edge": ["database", "object-store", "redis", "smtp-edge"],
  parser: ["database", "object-store", "redis", "parser"],
  all: ["database", "first-start", "object-store", "redis", "parser", "smtp-edge", "waiter", "api", "http-server"],
} as const satisfies Record<string, readonly ModuleName[]>;

export type Target = keyof typeof TARGETS;
export const TARGET_NAMES = Object.keys(TARGETS) as Target[];

export function isTarget(value: string): value is Target {
  return Object.hasOwn(TARGETS, value);
}

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
 * Modules a target leaves out, with a warning, when their engines are not configured, so
 * `pnpm start` still serves the API on a machine with only PostgreSQL (message bodies then
 * answer 503). TODO(#5): embedded stand-ins replace this; then `all` always runs everything.
 */
const OPTIONAL: Partial<Record<Target, ReadonlySet<ModuleName>>> = {
  all: new Set(["object-store", "redis", "parser", "smtp-edge", "waiter"]),
  api: new Set(["object-store"]),
  waiter: new Set(["object-store"]),
};

/** The settings a module and everything it needs are missing. */
function missingSettings(name: ModuleName, config: Config): string[] {
  const missing = new Set<string>(MODULES[name].requires(config));
  for (const need of MODULES[name].needs) for (const setting of missingSettings(need, config)) missing.add(setting);
  return [...missing];
}

export interface TargetPlan {
  order: ModuleName[];
  skipped: { module: ModuleName; missing: string[] }[];
}

/**
 * What a target runs under `config`. A module whose settings are missing is an error naming
 * them, except the optional mail-path modules of `all`, which are skipped and reported.
 */
export function planTarget(target: Target, config: Config): TargetPlan {
  const skipped: TargetPlan["skipped"] = [];
  const roots: ModuleName[] = [];
  for (const name of TARGETS[target]) {
    const missing = missingSettings(name, config);
    if (missing.length === 0) roots.push(name);
    else if (OPTIONAL[target]?.has(name)) skipped.push({ module: name, missing });
    else throw new Error(`${name} needs ${missing.join(", ")}: set ${missing.length === 1 ? "it" : "them"} to run target ${target}.`);
  }
  return { order: orderOf(roots), skipped };
}

export function createModule(name: ModuleName, context: RuntimeContext): ServiceModule {
  return MODULES[name].create(context);
}
