import { spawnSync } from "node:child_process";

/**
 * Engine URLs for tests. Tests take them from the environment (DATABASE_URL, REDIS_URL, S3_*);
 * testcontainers is used only when none is given and a Docker engine answers. Test code may
 * read process.env: the rule that only @mailstop/config reads it binds product code.
 */
export function givenDatabaseUrl(): string | undefined {
  return process.env.DATABASE_URL || undefined;
}

export function givenRedisUrl(): string | undefined {
  return process.env.REDIS_URL || undefined;
}

/** The conventional local Redis. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

/** Set by the global setup: this run's Redis; tests isolate themselves by key prefix. */
export const RUN_REDIS_ENV = "MAILSTOP_TEST_REDIS_URL";

export function runRedisUrl(): string {
  return setByGlobalSetup(RUN_REDIS_ENV);
}

/** A variable the jest global setup sets for every test worker. */
function setByGlobalSetup(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: integration tests run through the jest global setup`);
  return value;
}

/** The conventional local PostgreSQL of a developer machine or CI runner (trust auth). */
export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** True when a Docker engine (not just the client) answers. */
export function dockerIsAvailable(): boolean {
  const probe = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { timeout: 5000, encoding: "utf8" });
  return probe.status === 0 && probe.stdout.trim() !== "";
}

/** The URL of a database named `name` on the server of `serverUrl`. */
export function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Set by the global setup for every test worker: this run's own database. */
export const RUN_DATABASE_ENV = "MAILSTOP_TEST_DATABASE_URL";

/** Set by the global setup: the PostgreSQL server of this run, for tests that need more databases. */
export const RUN_SERVER_ENV = "MAILSTOP_TEST_SERVER_URL";

export function runServerUrl(): string {
  return setByGlobalSetup(RUN_SERVER_ENV);
}

export function runDatabaseUrl(): string {
  return setByGlobalSetup(RUN_DATABASE_ENV);
}

/** Set by the global setup: names this run's Redis keys, so its teardown removes exactly them. */
export const RUN_ID_ENV = "MAILSTOP_TEST_RUN_ID";

/** The Redis key prefix every key of this run starts with. */
export function runRedisPrefix(): string {
  return `mailstop-test-${process.env[RUN_ID_ENV] ?? "adhoc"}`;
}
