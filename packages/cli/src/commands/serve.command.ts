import { Command, Option } from "commander";
// The target names alone: `mailstop --help` must not load every service (seconds through tsx).
import { TARGET_NAMES, type Target } from "@mailstop/runtime/src/target-names";

export function serveCommand(): Command {
  return new Command("serve")
    .description("run mailstop: every service in one process (all) or one service of the fleet")
    .addOption(new Option("--target <target>", "what to run").choices(TARGET_NAMES).default("all"))
    .action(async (options: { target: Target }) => {
      // require, not import(): the CLI runs as CommonJS through tsx's require hook, which an
      // ES import() of a .ts file would bypass.
      const { runProcess } = require("@mailstop/runtime") as typeof import("@mailstop/runtime");
      await runProcess(options.target);
    });
}
