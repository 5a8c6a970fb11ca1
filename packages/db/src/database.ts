import { Kysely, Migrator, PostgresDialect, type MigrationResult, sql } from "kysely";
import pg from "pg";
import { MIGRATIONS } from "./migrations";
import { PreparingClient } from "./prepared-statements";
import type { Database } from "./tables";

export type Db = Kysely<Database>;

// DATE (oid 1082) stays a `YYYY-MM-DD` string: pg's default turns it into a Date at local
// midnight, which shifts the day in any time zone west of UTC.
pg.types.setTypeParser(1082, (value: string) => value);

export interface DatabaseOptions {
  /** Pool size; the default suits one service process on a small machine. */
  maxConnections?: number;
}

/** A kysely handle over a pg pool. The caller owns it and must `destroy()` it on stop. */
export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, Client: PreparingClient });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // node would crash the process. The next query gets a fresh client.
  pool.on("error", () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Applies every pending migration. Safe when several instances start at once: kysely holds a
 * PostgreSQL advisory lock for the run and tolerates racing creation of its own tables.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw new Error(`database migration failed: ${describe(error)}`, { cause: error });
  return results ?? [];
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `work` in a transaction holding a PostgreSQL advisory lock on `lockId`, so instances
 * racing on the same one-time step (such as a first-start bootstrap) run it one at a time.
 */
export async function withTransactionLock<T>(db: Db, lockId: number, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${lockId})`.execute(trx);
    return work(trx);
  });
}

/** True when the database answers a trivial query. */
export async function isReachable(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` in the caller's transaction when `db` is one, else in a new transaction. */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Creates the database named in `url` when the server does not have it yet (SQLSTATE 3D000),
 * so a first start needs only a reachable server. Connects to the server's `postgres` database.
 */
export async function ensureDatabaseExists(url: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return false;
  } catch (error) {
    if ((error as { code?: unknown }).code !== "3D000") throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: target.toString() });
  await admin.connect();
  try {
    await admin.query(`create database ${pg.escapeIdentifier(name)}`);
  } catch (error) {
    // Another instance created it first (duplicate_database): that is the outcome we wanted.
    if ((error as { code?: unknown }).code !== "42P04") throw error;
  } finally {
    await admin.end();
  }
  return true;
}
