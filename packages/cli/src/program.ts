import { Command } from "commander";
import { type ClientConfig, type Config, loadProcessClientConfig, loadProcessConfig } from "@mailstop/config";
import { adminCommand } from "./commands/admin.command";
import { mcpCommand } from "./commands/mcp.command";
import { migrateCommand } from "./commands/migrate.command";
import { serveCommand } from "./commands/serve.command";
import { waitCommand } from "./commands/wait.command";

/** The `mailstop` command line. */
export function buildProgram(loadConfig: () => Config = loadProcessConfig, loadClientConfig: () => ClientConfig = loadProcessClientConfig): Command {
  return new Command("mailstop")
    .description("hosted test inboxes, a blocking wait and an SMTP capture relay")
    .version("0.1.0")
    .showHelpAfterError()
    .addCommand(serveCommand())
    .addCommand(migrateCommand(loadConfig))
    .addCommand(adminCommand(loadConfig))
    .addCommand(waitCommand())
    .addCommand(mcpCommand(loadClientConfig));
}
