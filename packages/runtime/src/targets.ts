import type { RuntimeContext, ServiceModule } from "./module";
import { apiModule } from "./modules/api.module";
import { databaseModule } from "./modules/database.module";
import { firstStartModule } from "./modules/first-start.module";
import { httpServerModule } from "./modules/http-server.module";
import { idleModule } from "./modules/idle.module";

/** Every module, with the modules it needs started before it. */
const MODULES = {
  database: { needs: [], create: databaseModule },
  "first-start": { needs: ["database"], create: firstStartModule },
  parser: { needs: ["database"], create: idleModule("parser") },
  "smtp-edge": { needs: ["database"], create: idleModule("smtp-edge") },
  waiter: { needs: ["database"], create: idleModule("waiter") },
  api: { needs: ["database"], create: apiModule },
  // Last: it serves the routes the api and waiter modules added.
  "http-server": { needs: ["database"], create: httpServerModule },
} as const satisfies Record<string, { needs: readonly string[]; create: (context: RuntimeContext) => ServiceModule }>;

export type ModuleName = keyof typeof MODULES;

/** The targets of `mailstop serve --target`: each lists its modules in start order. */
export const TARGETS = {
  api: ["api", "http-server"],
  waiter: ["waiter", "http-server"],
  "smtp-edge": ["smtp-edge"],
  parser: ["parser"],
  all: ["first-start", "parser", "smtp-edge", "waiter", "api", "http-server"],
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
  const order: ModuleName[] = [];
  const visit = (name: ModuleName, path: readonly ModuleName[]): void => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`module dependency cycle: ${[...path, name].join(" -> ")}`);
    for (const need of MODULES[name].needs) visit(need, [...path, name]);
    order.push(name);
  };
  for (const name of TARGETS[target]) visit(name, []);
  return order;
}

export function createModule(name: ModuleName, context: RuntimeContext): ServiceModule {
  return MODULES[name].create(context);
}
