/**
 * Which engines this test run uses: `engines` (PostgreSQL, Redis and an S3 server) or
 * `embedded` (the monolith's stand-ins: PGlite, a directory, in-process messaging). The jest
 * project sets it, so one test definition runs in both worlds.
 */
export type TestWorld = "engines" | "embedded";

export const TEST_WORLD_ENV = "MAILSTOP_TEST_WORLD";

export function testWorld(): TestWorld {
  return process.env[TEST_WORLD_ENV] === "embedded" ? "embedded" : "engines";
}

/**
 * A describe block that needs the real engines (a shared Redis between processes, an engine a
 * test stops, a second PostgreSQL database). On the embedded stand-ins it is skipped, and the
 * skip says why in the test report.
 */
export function describeWithEngines(name: string, reason: string, body: () => void): void {
  if (testWorld() === "engines") describe(name, body);
  else describe.skip(`${name} [real engines only: ${reason}]`, body);
}
