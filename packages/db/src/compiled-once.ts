import { type Compilable, CompiledQuery } from "kysely";
import type { Db } from "./database";
import { prepareStatement } from "./prepared-statements";

/** Stands for the i-th argument while the query is built; never sent to the database. */
class Marker {
  constructor(readonly index: number) {}
}

/**
 * A query whose SQL is built once per database handle. kysely builds and compiles a query's
 * operation tree on every call (8 % of the API's CPU while serving reads, in the benchmark's
 * profile), although the hottest reads differ only in their parameters. `build` runs once with
 * a marker for each argument; each call then puts its own values where the markers landed in
 * the compiled parameters. Arguments must be scalar values used as they are (a list would
 * expand into a varying number of parameters; an array bound to one parameter, as in
 * `${values}::text[]`, is one value). On PostgreSQL it also runs as a prepared statement.
 */
export function compiledOnce<Args extends readonly unknown[], Row>(
  arity: Args["length"],
  build: (db: Db, ...args: Args) => Compilable<Row>,
): (db: Db, ...args: Args) => Promise<Row[]> {
  const compiled = new WeakMap<Db, { sql: string; parameters: readonly unknown[] }>();
  return async (db, ...args) => {
    let query = compiled.get(db);
    if (query === undefined) {
      const markers = Array.from({ length: arity }, (_, index) => new Marker(index));
      const { sql, parameters } = build(db, ...(markers as unknown as Args)).compile();
      const used = new Set(parameters.filter((value) => value instanceof Marker).map((marker) => marker.index));
      if (used.size !== arity) throw new Error(`compiledOnce: ${arity - used.size} argument(s) did not become parameters of ${sql}`);
      query = { sql, parameters };
      compiled.set(db, query);
      // Its text never changes: each connection prepares it once (see prepareStatement).
      prepareStatement(sql);
    }
    const parameters = query.parameters.map((value) => (value instanceof Marker ? args[value.index] : value));
    // A fresh query id per call: nothing may share per-execution state between calls.
    return (await db.executeQuery<Row>(CompiledQuery.raw(query.sql, parameters))).rows;
  };
}
