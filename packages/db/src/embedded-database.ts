import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Kysely } from "kysely";
import type { Db } from "./database";
import { copyTemplateTo, templateFor } from "./embedded-template";
import { PGliteSimpleQueries } from "./pglite-simple-queries";
import type { Database } from "./tables";

/**
 * PGlite reads values differently from node-postgres; these make it answer exactly as the pg
 * pool does, so repositories never know which one they have: bigint as a decimal string,
 * DATE as `YYYY-MM-DD`, bytea as a Buffer.
 */
function parsers({ types }: typeof import("@electric-sql/pglite")) {
  return {
    [types.INT8]: (value: string) => value,
    [types.DATE]: (value: string) => value,
    [types.BYTEA]: (value: string) => Buffer.from(value.startsWith("\\x") ? value.slice(2) : value, "hex"),
  };
}

/**
 * PostgreSQL settings of the embedded database, on top of PGlite's own start parameters
 * (`PGlite.defaultStartParams`). PostgreSQL's default shared_buffers, 128 MB, lives in PGlite's
 * WebAssembly memory, which PGlite writes through at start: the memory grows past its 128 MB
 * minimum to 184 MB and most of it is resident, ~130 MB of RSS in an idle `pnpm start` holding
 * a few pages of data (issue 34). 16 MB of buffers keep the memory at its minimum, mostly
 * untouched; reads past them come from the operating system's page cache (data files on disk)
 * or from the memory file system (an in-memory database). wal_buffers follows (1/32 of them:
 * 512 kB). docs/performance.md, "A light default (issue 34)", has the measurements.
 */
export const EMBEDDED_POSTGRES_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: "16MB",
};

function startParams(PGlite: typeof import("@electric-sql/pglite").PGlite): string[] {
  return [...PGlite.defaultStartParams, ...Object.entries(EMBEDDED_POSTGRES_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
}

/**
 * Closes PGlite on destroy even when no query ever ran: kysely destroys a driver only once it
 * was used, and a PGlite loaded from a template keeps the process alive until it is closed.
 */
class EmbeddedKysely extends Kysely<Database> {
  constructor(
    private readonly pglite: import("@electric-sql/pglite").PGlite,
    PGliteDialect: typeof import("kysely-pglite-dialect").PGliteDialect,
  ) {
    // The dialect calls only query() and close(), which PGliteSimpleQueries provides.
    super({ dialect: new PGliteDialect(new PGliteSimpleQueries(pglite) as unknown as import("@electric-sql/pglite").PGlite) });
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    if (!this.pglite.closed) await this.pglite.close();
  }
}

/**
 * The embedded stand-in for PostgreSQL: PGlite (PostgreSQL compiled to WebAssembly) in this
 * process, keeping its files under `directory` (or in memory when null). The same migrations
 * and queries run on it; kysely-pglite-dialect serialises every query and transaction onto
 * its single connection, each sent as one simple query (pglite-simple-queries.ts). A new database starts from the install's pre-built template when
 * there is one for today's schema (embedded-template.ts), else from initdb.
 */
export function createEmbeddedDatabase(directory: string | null, templateDir?: string): Db {
  // Loaded here, not at the top: importing PGlite maps its WebAssembly build, ~45 MB of RSS in
  // every process that loads @mailstop/db, and only the monolith without DATABASE_URL uses it.
  const pgliteModule = require("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
  const { PGliteDialect } = require("kysely-pglite-dialect") as typeof import("kysely-pglite-dialect");
  if (directory !== null) {
    mkdirSync(dirname(directory), { recursive: true });
    // A new database on disk starts as a copy of the unpacked template; PGlite then opens it as any existing one.
    copyTemplateTo(directory, templateDir);
    mkdirSync(directory, { recursive: true });
  }
  // "memory://", not undefined, for an in-memory database: PGlite ignores loadDataDir without a data dir.
  const pglite = new pgliteModule.PGlite(directory ?? "memory://", {
    parsers: parsers(pgliteModule),
    loadDataDir: templateFor(directory, templateDir),
    startParams: startParams(pgliteModule.PGlite),
  });
  return new EmbeddedKysely(pglite, PGliteDialect);
}
