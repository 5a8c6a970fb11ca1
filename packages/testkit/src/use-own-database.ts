import { createFreshDatabase, dropDatabase } from "./databases";
import { runServerUrl } from "./engines";
import { testWorld } from "./world";

/**
 * A database of the suite's own in the integration world (the embedded world gives every
 * server its own PGlite already). Every parser on a database delivers that database's webhook
 * events, so a suite that waits for deliveries at its own receiver must not share the run's
 * database: another suite's server would take them (and refuse or strand them). Call it before
 * `useTestServer` and spread `env()` into the server's environment.
 */
export function useOwnDatabase(prefix: string): { env(): Record<string, string> } {
  let database: { name: string; url: string } | null = null;
  beforeAll(async () => {
    if (testWorld() !== "embedded") database = await createFreshDatabase(runServerUrl(), prefix);
  });
  afterAll(async () => {
    if (database !== null) await dropDatabase(runServerUrl(), database.name);
  });
  return { env: (): Record<string, string> => (database === null ? {} : { DATABASE_URL: database.url }) };
}
