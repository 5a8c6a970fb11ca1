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
