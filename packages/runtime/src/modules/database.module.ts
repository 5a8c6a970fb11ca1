import { type Db, createDatabase, ensureDatabaseExists, isReachable, migrateToLatest } from "@mailstop/db";
import type { RuntimeContext, ServiceModule } from "../module";

/**
 * PostgreSQL for every target: opens the pool and applies pending migrations on start
 * (safe when several instances start at once).
 */
export function databaseModule(context: RuntimeContext): ServiceModule {
  const url = context.config.databaseUrl;
  if (url === null) {
    // TODO(#5): the monolithic target runs on embedded PGlite when DATABASE_URL is unset.
    throw new Error("DATABASE_URL is not set: mailstop needs PostgreSQL (for example postgres://postgres@127.0.0.1:5432/mailstop).");
  }
  const db: Db = createDatabase(url);
  context.db = db;
  return {
    name: "database",
    async start() {
      if (await ensureDatabaseExists(url)) context.logger.info("database created");
      const applied = await migrateToLatest(db);
      if (applied.length > 0) context.logger.info({ migrations: applied.map((m) => m.migrationName) }, "database migrated");
    },
    async stop() {
      await db.destroy();
    },
    ready: () => isReachable(db),
  };
}
