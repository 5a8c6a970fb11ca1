import pg from "pg";

/**
 * SQL texts run as named prepared statements on PostgreSQL: the hot paths' queries, whose text
 * never changes (see compiledOnce). PostgreSQL plans an unnamed statement on every execution;
 * a named one is parsed and planned once per connection and then only bound and executed. The
 * parse batch's one-statement store spent more than half of its time planning (1.6 ms against
 * 0.7 ms prepared, single message, on the benchmark machine), on the path of every arrival.
 *
 * Only registered texts are prepared, at most MAX_PREPARED_STATEMENTS of them, so each
 * connection holds a bounded set of statements; any other query stays unnamed. The registry is process-wide: a text means the same statement on
 * every connection, and its name is derived from the order of registration.
 */
const names = new Map<string, string>();

/**
 * The most texts prepared: a query whose text varies with its input (the list filters, one
 * shape per combination of filters present) must not make each connection hold a plan for
 * every combination ever asked. Past this, new texts run unnamed, as before.
 */
export const MAX_PREPARED_STATEMENTS = 64;

/** Marks `sql` to be prepared on each PostgreSQL connection that runs it (while there is room). */
export function prepareStatement(sql: string): void {
  if (!names.has(sql) && names.size < MAX_PREPARED_STATEMENTS) names.set(sql, `mailstop_${names.size + 1}`);
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
  // One signature standing for node-postgres's overloads (hence `any`, their common result):
  // every call but a registered (text, values) is forwarded as it came.
  override query(...args: unknown[]): any {
    const [text, values] = args;
    const name = typeof text === "string" && Array.isArray(values) && args.length === 2 ? names.get(text) : undefined;
    const query = super.query as (...forwarded: unknown[]) => unknown;
    return name === undefined ? query.apply(this, args) : query.call(this, { name, text, values });
  }
}
