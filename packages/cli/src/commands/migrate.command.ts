import { Command } from "commander";
import { createDatabase, migrateToLatest } from "@mailstop/db";
import type { Config } from "@mailstop/config";

export function migrateCommand(loadConfig: () => Config): Command {
  return new Command("migrate").description("apply pending database migrations and exit").action(async () => {
    const { databaseUrl } = loadConfig();
    if (databaseUrl === null) throw new Error("DATABASE_URL is not set: there is no database to migrate.");
    const db = createDatabase(databaseUrl, { maxConnections: 1 });
    try {
      const applied = await migrateToLatest(db);
      process.stdout.write(applied.length === 0 ? "database is up to date\n" : applied.map((m) => `applied ${m.migrationName}\n`).join(""));
    } finally {
      await db.destroy();
    }
  });
}
