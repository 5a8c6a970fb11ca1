import { Command } from "commander";
import type { Config } from "@mailstop/config";

/**
 * `mailstop keys create --project <key>`: a new API key for an existing project, from the
 * installation's data (docs/operator.md "A new key for an existing project"), printed once.
 */
export function keysCommand(loadConfig: () => Config): Command {
  const keys = new Command("keys").description("API keys made from the installation's data (no server or admin token needed)");
  keys
    .command("create")
    .description("create an API key with every scope for an existing project, in MAILSTOP_DATA_DIR or DATABASE_URL; prints it once")
    .requiredOption("--project <key>", "the project key (a first start creates `local`)")
    .option("--json", "print { id, key, project, scopes, environment } as JSON")
    .action(async (options: { project: string; json?: boolean }) => {
      // Loaded here, as in migrate.command.ts: the rest of the command line starts without the database code.
      const { KeysCreateError, createProjectKey } = require("@mailstop/runtime/src/create-project-key") as typeof import("@mailstop/runtime/src/create-project-key");
      try {
        const issued = await createProjectKey(loadConfig(), options.project);
        const shown = { id: issued.id, key: issued.key, project: options.project, scopes: issued.scopes, environment: issued.environment };
        process.stdout.write(
          options.json === true
            ? `${JSON.stringify(shown, null, 2)}\n`
            : `API key for project \`${options.project}\` (${issued.id}, every scope), shown once and stored only as its SHA-256 hash:\n${issued.key}\nUse it as MAILSTOP_API_KEY (or --api-key).\n`,
        );
      } catch (error) {
        if (!(error instanceof KeysCreateError)) throw error;
        process.stderr.write(`mailstop keys create: ${error.message}\n`);
        process.exitCode = 1;
      }
    });
  return keys;
}
