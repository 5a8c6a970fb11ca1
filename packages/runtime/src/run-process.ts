import { ConfigError, loadProcessConfig } from "@mailstop/config";
import { startTarget } from "./runner";
import type { Target } from "./targets";

/**
 * Runs a target as this process: configuration from the environment, stop on SIGINT or
 * SIGTERM. A configuration or start-up failure prints one line per problem and exits 1.
 */
export async function runProcess(target: Target): Promise<void> {
  let running;
  try {
    running = await startTarget(target, { config: loadProcessConfig() });
  } catch (error) {
    const lines = error instanceof ConfigError ? error.lines : [`mailstop: ${target} failed to start: ${error instanceof Error ? error.message : String(error)}`];
    for (const line of lines) process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  const shutdown = () => {
    void running.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
