import { createFreshDatabase, dropDatabase } from "./databases";
import { runServerUrl } from "./engines";
import { testWorld } from "./world";

/**
 * A database of the suite's own in the integration world (the embedded world gives every
 * server its own PGlite already). Every parser on a database delivers that database's webhook
 * events, so a suite that waits for deliveries at its own receiver must not share the run's
 * database: another suite's server would take them (and refuse or strand them).
 *
 * Declare it after `useTestServer` and await `env()` in the server's options: the database is
 * made when the server starts, and dropped after the server's own afterAll has stopped it
 * (hooks run in the order they are declared).
 */
export function useOwnDatabase(prefix: string): { env(): Promise<Record<string, string>> } {
  let database: Promise<{ name: string; url: string }> | null = null;
  afterAll(async () => {
    if (database !== null) await dropDatabase(runServerUrl(), (await database).name);
  });
  return {
    async env(): Promise<Record<string, string>> {
      if (testWorld() === "embedded") return {};
      database ??= createFreshDatabase(runServerUrl(), prefix);
      return { DATABASE_URL: (await database).url };
    },
  };
}
