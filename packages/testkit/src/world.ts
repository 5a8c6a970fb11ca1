/**
 * Which mailstop this test run talks to, set by the jest project so one test definition runs
 * in every world:
 * - `engines`: the monolith in the test's process on PostgreSQL, Redis and an S3 server;
 * - `embedded`: the monolith in the test's process on its stand-ins (PGlite, a directory,
 *   in-process messaging);
 * - `fleet`: the four services as separate processes on the real engines behind nginx.
 */
export type TestWorld = "engines" | "embedded" | "fleet";

export const TEST_WORLD_ENV = "MAILSTOP_TEST_WORLD";

export function testWorld(): TestWorld {
  const world = process.env[TEST_WORLD_ENV];
  return world === "embedded" || world === "fleet" ? world : "engines";
}

/**
 * A describe block that runs only on the in-process monolith with the real engines (a second
 * waiter sharing its Redis, an engine the test stops, a PostgreSQL database of its own).
 * Elsewhere it is skipped, and the skip says why in the test report.
 */
export function describeWithEngines(name: string, reason: string, body: () => void): void {
  if (testWorld() === "engines") describe(name, body);
  else describe.skip(`${name} [in-process on real engines only: ${reason}]`, body);
}

/**
 * A describe block that needs the server in the test's own process (its internals, or a
 * server it stops itself): it runs in the `engines` and `embedded` worlds and is skipped, with
 * its reason, in the `fleet` world.
 */
export function describeInProcess(name: string, reason: string, body: () => void): void {
  if (testWorld() !== "fleet") describe(name, body);
  else describe.skip(`${name} [in-process only: ${reason}]`, body);
}

/** One test that runs only in the `engines` world; elsewhere skipped, its name saying why. */
export function itWithEngines(name: string, reason: string, test: () => Promise<void>, timeoutMs?: number): void {
  if (testWorld() === "engines") it(name, test, timeoutMs);
  else it.skip(`${name} [in-process on real engines only: ${reason}]`, test, timeoutMs);
}

/** One test that needs the server in the test's own process; skipped, saying why, in the fleet world. */
export function itInProcess(name: string, reason: string, test: () => Promise<void>, timeoutMs?: number): void {
  if (testWorld() !== "fleet") it(name, test, timeoutMs);
  else it.skip(`${name} [in-process only: ${reason}]`, test, timeoutMs);
}
