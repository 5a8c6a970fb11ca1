import { Command, Option } from "commander";
import { TARGET_NAMES, type Target, runProcess } from "@mailstop/runtime";

export function serveCommand(): Command {
  return new Command("serve")
    .description("run mailstop: every service in one process (all) or one service of the fleet")
    .addOption(new Option("--target <target>", "what to run").choices(TARGET_NAMES).default("all"))
    .action(async (options: { target: Target }) => runProcess(options.target));
}
