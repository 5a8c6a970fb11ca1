import { join } from "node:path";
import { type Db, createDatabase, createEmbeddedDatabase, ensureDatabaseExists, isReachable, migrateToLatest } from "@mailstop/db";
import { lockDataDir } from "../data-dir-lock";
import { defineModule } from "../module";

/**
 * PostgreSQL for every target, or PGlite under MAILSTOP_DATA_DIR for the monolith without
 * DATABASE_URL, the data directory locked first. Applies pending migrations on start (safe
 * when several instances start at once).
 */
export const databaseModule = defineModule({
  name: "database",
  needs: [],
  provides: ["db"],
  create({ config, logger }) {
    const url = config.databaseUrl;
    let db: Db | undefined;
    let release: () => void = () => undefined;
    return {
      async start() {
        if (url === null) {
          release = lockDataDir(config.dataDir);
          db = createEmbeddedDatabase(join(config.dataDir, "pglite"));
        } else {
          if (await ensureDatabaseExists(url)) logger.info("database created");
          db = createDatabase(url);
        }
        const applied = await migrateToLatest(db);
        if (applied.length > 0) logger.info({ migrations: applied.map((m) => m.migrationName) }, "database migrated");
        return { db };
      },
      async stop() {
        try {
          await db?.destroy();
        } finally {
          release();
        }
      },
      ready: async () => db !== undefined && (await isReachable(db)),
    };
  },
});
