import { ConfigError, loadProcessConfig } from "@mailstop/config";
import { watchPackageManagerParent } from "./parent-watch";
import { type RunningTarget, startTarget } from "./runner";
import { startSummary } from "./start-summary";
import type { Target } from "./target-names";

/**
 * Runs a target as this process: configuration from the environment; a graceful stop on
 * SIGINT, SIGTERM, or when the package manager that started it goes away (see
 * watchPackageManagerParent), also when asked while it is still starting. A configuration or
 * start-up failure prints one line per problem and exits 1. The monolith tells a person, on
 * stdout, when it is ready (startSummary) and when it has stopped.
 */
export async function runProcess(target: Target): Promise<void> {
  let running: RunningTarget | undefined;
  let stopping: string | null = null;
  const stopAndExit = (started: RunningTarget, why: string) => {
    started.context.logger.info({ reason: why }, "mailstop stopping");
    void started.stop().then(() => {
      process.stdout.write(`mailstop stopped (${why}); everything it accepted is kept.\n`);
      process.exit(0);
    });
  };
  const stop = (why: string) => {
    if (stopping !== null) return;
    stopping = why;
    if (running !== undefined) stopAndExit(running, why);
  };
  // `on`, not `once`: Ctrl-C in a terminal signals the whole process group, and the package
  // manager passes its own SIGINT on as well. A second signal while stopping must not end the
  // process by the default handler (pnpm then reports "Command failed" for a clean stop).
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  watchPackageManagerParent(() => stop("the package manager that started it exited"));
  try {
    running = await startTarget(target, { config: loadProcessConfig() });
  } catch (error) {
    const lines = error instanceof ConfigError ? error.lines : [`mailstop: ${target} failed to start: ${error instanceof Error ? error.message : String(error)}`];
    for (const line of lines) process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  if (stopping !== null) return stopAndExit(running, stopping);
  if (target === "all") {
    const { config, smtpPorts, firstStart } = running.context;
    running.context.print(startSummary({ config, smtpPorts, firstStart }));
  }
}
