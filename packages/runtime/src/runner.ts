import { withinDeadline } from "@mailstop/core";
import type { Config } from "@mailstop/config";
import { type Logger, createLogger } from "@mailstop/logging";
import { QUEUE_NAMES } from "@mailstop/messaging";
import { type Metrics, createMetrics } from "@mailstop/metrics";
import { CODE } from "./bundle";
import type { Dependencies, Provided, Provision, RunnableModule, RuntimeContext } from "./module";
import type { Target } from "./target-names";
import { type ModuleName, moduleNamed, planTarget } from "./targets";

/** A started target: what it runs, where it listens, and how to stop it. */
export interface RunningTarget {
  target: Target;
  /** Its modules, in start order. */
  modules: readonly ModuleName[];
  /** The runtime context and what the target's modules provided, for tests that look inside. */
  context: RuntimeContext & Partial<Provided>;
  /** The HTTP origin it listens on, when the target serves HTTP. */
  httpUrl: string | null;
  ready(): Promise<boolean>;
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  logger?: Logger;
  /** This process's metrics; default a registry of its own (a parser thread forwards to its process's). */
  metrics?: Metrics;
  print?: (text: string) => void;
}

/**
 * How long a module's readiness check may take: an engine that accepts connections and never
 * answers (a frozen server, a half-dead network) makes its module not ready, instead of a
 * probe that hangs until the orchestrator's own timeout.
 */
export const READY_DEADLINE_MS = 2000;

interface Started {
  name: ModuleName;
  module: ReturnType<RunnableModule["create"]>;
}

/**
 * Drains every module, then stops them in reverse start order; every module is asked to
 * drain and stop even if one fails.
 */
async function stopAll(started: readonly Started[], logger: Logger): Promise<void> {
  for (const step of ["drain", "stop"] as const) {
    for (const { name, module } of [...started].reverse()) {
      try {
        await module[step]?.();
      } catch (error) {
        logger.error({ err: error, module: name }, `module failed to ${step}`);
      }
    }
  }
}

/**
 * What `definition`'s factory is given: the context, and what it needs and may use from the
 * modules started before it. The start order puts the provider of every need first, so each
 * is there.
 */
function dependenciesOf(definition: RunnableModule, context: RuntimeContext, provided: Partial<Provided>): Dependencies<Provision, Provision> {
  const dependencies: Record<string, unknown> = { ...context };
  for (const name of definition.needs) dependencies[name] = provided[name];
  for (const name of definition.optional ?? []) dependencies[name] = provided[name] ?? null;
  return dependencies as unknown as Dependencies<Provision, Provision>;
}

/**
 * Starts the modules of `target` in dependency order, each created once what it needs has
 * started; on a failed start, stops what had been created.
 */
export async function startTarget(target: Target, options: StartOptions): Promise<RunningTarget> {
  const logger = options.logger ?? createLogger({ level: options.config.logLevel, name: "mailstop", format: options.config.logFormat });
  const plan = planTarget(target, options.config);
  for (const { module, missing } of plan.skipped) {
    logger.warn({ module, missing }, `${module} not started: ${missing.join(", ")} not set`);
  }
  if (plan.embedded.length > 0) {
    logger.info({ embedded: plan.embedded, data_dir: options.config.dataDir }, `embedded stand-ins for ${plan.embedded.join(", ")}; data under ${options.config.dataDir}`);
  }
  return startModules(target, plan.order, { ...options, logger });
}

/**
 * Starts `order`'s modules, in that order, as `target`: startTarget's plan, or the parser
 * thread's modules inside the monolith (see parser-thread).
 */
export async function startModules(target: Target, order: readonly ModuleName[], options: StartOptions & { logger: Logger }): Promise<RunningTarget> {
  const { logger } = options;
  const started: Started[] = [];
  let state: "starting" | "running" | "stopping" = "starting";
  const notReady = async (): Promise<string[]> => {
    if (state !== "running") return [state];
    const states = await Promise.all(started.map(({ name, module }) => withinDeadline(module.ready(), READY_DEADLINE_MS, `${name} readiness`).catch(() => false)));
    return started.filter((_, index) => !states[index]).map(({ name }) => name);
  };
  const context: RuntimeContext = {
    config: options.config,
    logger,
    // MAILSTOP_METRICS=off: a recorder that does nothing, so no hot path asks whether to record.
    metrics: options.metrics ?? createMetrics({ enabled: options.config.metrics.enabled, queues: QUEUE_NAMES }),
    print: options.print ?? ((text) => process.stdout.write(`${text}\n`)),
    notReady,
  };
  const provided: Partial<Provided> = {};
  try {
    for (const name of order) {
      const definition: RunnableModule = moduleNamed(name);
      const module = definition.create(dependenciesOf(definition, context, provided));
      // Pushed before its start: a start that fails part-way is stopped like the others.
      started.push({ name, module });
      Object.assign(provided, await module.start());
    }
  } catch (error) {
    await stopAll(started, logger);
    throw error;
  }
  state = "running";
  logger.info({ target, modules: started.map(({ name }) => name), code: CODE }, "mailstop started");

  let stopping: Promise<void> | undefined;
  const address = provided.httpAddress;
  return {
    target,
    modules: started.map(({ name }) => name),
    context: { ...context, ...provided },
    httpUrl: address === undefined ? null : `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`,
    ready: async () => (await notReady()).length === 0,
    stop: () => {
      // Not ready from this moment, before any listener closes: the orchestrator takes the
      // process out of rotation while it drains.
      state = "stopping";
      stopping ??= stopAll(started, logger);
      return stopping;
    },
  };
}
