import type { Config } from "@mailstop/config";
import { type Logger, createLogger } from "@mailstop/logging";
import type { RuntimeContext, ServiceModule } from "./module";
import type { Target } from "./target-names";
import { createModule, planTarget } from "./targets";

/** A started target: what it runs, where it listens, and how to stop it. */
export interface RunningTarget {
  target: Target;
  modules: readonly ServiceModule[];
  context: RuntimeContext;
  /** The HTTP origin it listens on, when the target serves HTTP. */
  httpUrl: string | null;
  ready(): Promise<boolean>;
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  logger?: Logger;
  print?: (text: string) => void;
}

/**
 * Drains every module, then stops them in reverse start order; every module is asked to
 * drain and stop even if one fails.
 */
async function stopAll(modules: readonly ServiceModule[], logger: Logger): Promise<void> {
  for (const step of ["drain", "stop"] as const) {
    for (const module of [...modules].reverse()) {
      try {
        await module[step]?.();
      } catch (error) {
        logger.error({ err: error, module: module.name }, `module failed to ${step}`);
      }
    }
  }
}

/** Creates and starts every module of `target`; on a failed start, stops what had started. */
export async function startTarget(target: Target, options: StartOptions): Promise<RunningTarget> {
  const logger = options.logger ?? createLogger({ level: options.config.logLevel, name: "mailstop" });
  const context: RuntimeContext = {
    config: options.config,
    logger,
    print: options.print ?? ((text) => process.stdout.write(`${text}\n`)),
    http: [],
  };
  const plan = planTarget(target, options.config);
  for (const { module, missing } of plan.skipped) {
    logger.warn({ module, missing }, `${module} not started: ${missing.join(", ")} not set`);
  }
  if (plan.embedded.length > 0) {
    logger.info({ embedded: plan.embedded, data_dir: options.config.dataDir }, `embedded stand-ins for ${plan.embedded.join(", ")}; data under ${options.config.dataDir}`);
  }
  const modules: ServiceModule[] = [];
  try {
    for (const name of plan.order) modules.push(createModule(name, context));
  } catch (error) {
    await stopAll(modules, logger);
    throw error;
  }
  try {
    for (const module of modules) {
      await module.start();
    }
  } catch (error) {
    // Every module's stop is safe before its start, so all are stopped: a pool opened at
    // creation is closed even when its own start failed.
    await stopAll(modules, logger);
    throw error;
  }
  logger.info({ target, modules: modules.map((m) => m.name) }, "mailstop started");
  const notReady = async () => {
    const states = await Promise.all(modules.map((m) => m.ready().catch(() => false)));
    return modules.filter((_, index) => !states[index]).map((m) => m.name);
  };
  context.notReady = notReady;

  let stopping: Promise<void> | undefined;
  const address = context.httpAddress;
  return {
    target,
    modules,
    context,
    httpUrl: address === undefined ? null : `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`,
    ready: async () => (await notReady()).length === 0,
    stop: () => {
      stopping ??= stopAll(modules, logger);
      return stopping;
    },
  };
}
