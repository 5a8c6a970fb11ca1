import { mkdirSync } from "node:fs";
import { Kysely } from "kysely";
import type { Db } from "./database";
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
 * The embedded stand-in for PostgreSQL: PGlite (PostgreSQL compiled to WebAssembly) in this
 * process, keeping its files under `directory` (or in memory when null). The same migrations
 * and queries run on it; kysely-pglite-dialect serialises every query and transaction onto
 * its single connection.
 */
export function createEmbeddedDatabase(directory: string | null): Db {
  // Loaded here, not at the top: importing PGlite maps its WebAssembly build, ~45 MB of RSS in
  // every process that loads @mailstop/db, and only the monolith without DATABASE_URL uses it.
  const pgliteModule = require("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
  const { PGliteDialect } = require("kysely-pglite-dialect") as typeof import("kysely-pglite-dialect");
  if (directory !== null) mkdirSync(directory, { recursive: true });
  const pglite = new pgliteModule.PGlite(directory ?? undefined, { parsers: parsers(pgliteModule) });
  return new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
}
