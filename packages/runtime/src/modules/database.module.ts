import { join } from "node:path";
import { type Db, createDatabase, createEmbeddedDatabase, ensureDatabaseExists, isReachable, migrateToLatest } from "@mailstop/db";
import { lockDataDir } from "../data-dir-lock";
import type { RuntimeContext, ServiceModule } from "../module";

/**
 * PostgreSQL for every target, or PGlite under MAILSTOP_DATA_DIR for the monolith without
 * DATABASE_URL. Applies pending migrations on start (safe when several instances start at once).
 */
export function databaseModule(context: RuntimeContext): ServiceModule {
  const url = context.config.databaseUrl;
  const release = url === null ? lockDataDir(context.config.dataDir) : () => undefined;
  const db: Db = url === null ? createEmbeddedDatabase(join(context.config.dataDir, "pglite")) : createDatabase(url);
  context.db = db;
  return {
    name: "database",
    async start() {
      if (url !== null && (await ensureDatabaseExists(url))) context.logger.info("database created");
      const applied = await migrateToLatest(db);
      if (applied.length > 0) context.logger.info({ migrations: applied.map((m) => m.migrationName) }, "database migrated");
    },
    async stop() {
      try {
        await db.destroy();
      } finally {
        release();
      }
    },
    ready: () => isReachable(db),
  };
}
