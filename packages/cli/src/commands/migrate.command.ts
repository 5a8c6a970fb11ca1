import { Command } from "commander";
import type { Config } from "@mailstop/config";

export function migrateCommand(loadConfig: () => Config): Command {
  return new Command("migrate").description("apply pending database migrations and exit").action(async () => {
    const { databaseUrl } = loadConfig();
    if (databaseUrl === null) throw new Error("DATABASE_URL is not set: there is no database to migrate.");
    // Loaded here, not at the top, so the rest of the command line starts without the database
    // code; require, as in serve.command.ts.
    const { createDatabase, migrateToLatest } = require("@mailstop/db") as typeof import("@mailstop/db");
    const db = createDatabase(databaseUrl, { maxConnections: 1 });
    try {
      const applied = await migrateToLatest(db);
      process.stdout.write(applied.length === 0 ? "database is up to date\n" : applied.map((m) => `applied ${m.migrationName}\n`).join(""));
    } finally {
      await db.destroy();
    }
  });
}
