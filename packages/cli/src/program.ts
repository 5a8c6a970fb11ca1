import { Command } from "commander";
import { type ClientConfig, type Config, loadProcessClientConfig, loadProcessConfig } from "@mailstop/config";
import { adminCommand } from "./commands/admin.command";
import { checksCommand } from "./commands/checks.command";
import { domainsCommand } from "./commands/domains.command";
import { inboxesCommand } from "./commands/inboxes.command";
import { keysCommand } from "./commands/keys.command";
import { mcpCommand } from "./commands/mcp.command";
import { messagesCommand } from "./commands/messages.command";
import { migrateCommand } from "./commands/migrate.command";
import { serveCommand } from "./commands/serve.command";
import { waitCommand } from "./commands/wait.command";
import { webhooksCommand } from "./commands/webhooks.command";

/** The `mailstop` command line. */
export function buildProgram(loadConfig: () => Config = loadProcessConfig, loadClientConfig: () => ClientConfig = loadProcessClientConfig): Command {
  return new Command("mailstop")
    .description("hosted test inboxes, a blocking wait and an SMTP capture relay")
    .version("0.1.0")
    .showHelpAfterError()
    .addCommand(serveCommand())
    .addCommand(migrateCommand(loadConfig))
    .addCommand(adminCommand(loadConfig))
    .addCommand(keysCommand(loadConfig))
    .addCommand(waitCommand())
    .addCommand(inboxesCommand())
    .addCommand(messagesCommand())
    .addCommand(checksCommand())
    .addCommand(domainsCommand())
    .addCommand(webhooksCommand())
    .addCommand(mcpCommand(loadClientConfig));
}
