import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedDatabase, migrateToLatest } from "@mailstop/db";
import { startRunDns } from "./dns";

/** Set by the embedded world's global setup: a migrated, empty PGlite data directory to copy. */
export const PGLITE_TEMPLATE_ENV = "MAILSTOP_TEST_PGLITE_TEMPLATE";

declare global {
  // eslint-disable-next-line no-var
  var __MAILSTOP_PGLITE_TEMPLATE__: string | undefined;
  // eslint-disable-next-line no-var
  var __MAILSTOP_RUN_DNS_STOP__: (() => Promise<void>) | undefined;
}

/**
 * Once per run: an empty PGlite database with every migration applied. Each embedded test
 * server starts on a copy of it instead of running initdb and the migrations again (seconds
 * each); its own start still runs the migrator, which finds nothing to do.
 */
export default async function embeddedGlobalSetup(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "mailstop-pglite-template-"));
  const db = createEmbeddedDatabase(join(root, "pglite"));
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  globalThis.__MAILSTOP_PGLITE_TEMPLATE__ = root;
  process.env[PGLITE_TEMPLATE_ENV] = join(root, "pglite");
  globalThis.__MAILSTOP_RUN_DNS_STOP__ = await startRunDns();
}
