import { mkdirSync } from "node:fs";
import { PGlite, types } from "@electric-sql/pglite";
import { Kysely } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import type { Db } from "./database";
import type { Database } from "./tables";

/**
 * PGlite reads values differently from node-postgres; these make it answer exactly as the pg
 * pool does, so repositories never know which one they have: bigint as a decimal string,
 * DATE as `YYYY-MM-DD`, bytea as a Buffer.
 */
const PARSERS = {
  [types.INT8]: (value: string) => value,
  [types.DATE]: (value: string) => value,
  [types.BYTEA]: (value: string) => Buffer.from(value.startsWith("\\x") ? value.slice(2) : value, "hex"),
};

/**
 * The embedded stand-in for PostgreSQL: PGlite (PostgreSQL compiled to WebAssembly) in this
 * process, keeping its files under `directory` (or in memory when null). The same migrations
 * and queries run on it; kysely-pglite-dialect serialises every query and transaction onto
 * its single connection.
 */
export function createEmbeddedDatabase(directory: string | null): Db {
  if (directory !== null) mkdirSync(directory, { recursive: true });
  const pglite = new PGlite(directory ?? undefined, { parsers: PARSERS });
  return new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
}
