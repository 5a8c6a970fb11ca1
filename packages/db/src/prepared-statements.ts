import pg from "pg";

/**
 * SQL texts run as named prepared statements on PostgreSQL: the hot paths' queries. PostgreSQL
 * parses, analyses and plans an unnamed statement on every execution; a named one is parsed
 * and analysed once per connection, then bound and executed, with a plan made per execution
 * for its first five and one generic plan kept after when that is no costlier. The parse
 * batch's one-statement store took 1.6 ms unnamed and 0.7 ms prepared (one message, on the
 * benchmark machine), on the path of every arrival.
 *
 * Only registered texts are prepared, so each connection holds a bounded set of statements;
 * any other query stays unnamed. Only queries whose best plan does not depend on their values
 * are registered (lookups by unique keys, the store), since a generic plan serves them all.
 * Prepared statements name their result columns (never `t.*`): PostgreSQL refuses to run a
 * cached plan whose result type a migration has changed. The registry is process-wide: a text
 * means the same statement on every connection, named in the order of registration.
 */
const names = new Map<string, string>();
let varying = 0;

/**
 * The most texts registered by prepareVaryingStatement: a query whose text varies with its
 * input (one per combination of filters present) must not make each connection hold a
 * statement for every combination ever asked. Past this, new ones run unnamed, as before.
 */
export const MAX_VARYING_STATEMENTS = 64;

function register(sql: string): void {
  names.set(sql, `mailstop_${names.size + 1}`);
}

/** Marks `sql`, a text fixed in the code (see compiledOnce), to be prepared on each connection that runs it. */
export function prepareStatement(sql: string): void {
  if (!names.has(sql)) register(sql);
}

/** Marks `sql`, a text built from the input, to be prepared too while fewer than MAX_VARYING_STATEMENTS such are. */
export function prepareVaryingStatement(sql: string): void {
  if (names.has(sql) || varying >= MAX_VARYING_STATEMENTS) return;
  varying += 1;
  register(sql);
}

/** The statement name of a registered text (for tests and diagnostics). */
export function preparedStatementName(sql: string): string | undefined {
  return names.get(sql);
}

/**
 * node-postgres's client, running a registered text as a named statement. node-postgres
 * prepares a named statement the first time a connection sees its name and reuses it after;
 * kysely's driver calls `query(text, values)`, which is where the name is put in.
 */
export class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A checked-out client whose connection breaks (pg_terminate_backend, a restart, a
    // failover) emits 'error'; the pool listens only while the client is idle, and kysely
    // never does, so without this the process would crash. The query in flight rejects with
    // the same error, and the pool discards the broken client when it is released.
    this.on("error", () => undefined);
  }

  // One signature standing for node-postgres's overloads (hence `any`, their common result):
  // every call but a registered (text, values) is forwarded as it came.
  override query(...args: unknown[]): any {
    const [text, values] = args;
    const name = typeof text === "string" && Array.isArray(values) && args.length === 2 ? names.get(text) : undefined;
    const query = super.query as (...forwarded: unknown[]) => unknown;
    return name === undefined ? query.apply(this, args) : query.call(this, { name, text, values });
  }
}
