import { createDatabase, migrateToLatest } from "@mailstop/db";
import { createFreshDatabase } from "./databases";
import { startRunDns } from "./dns";
import pg from "pg";
import { tcpAnswers } from "@mailstop/deploy";
import { randomBytes } from "node:crypto";
import { LOCAL_POSTGRES_URL, LOCAL_REDIS_URL, RUN_DATABASE_ENV, RUN_ID_ENV, RUN_REDIS_ENV, RUN_SERVER_ENV, dockerIsAvailable, givenDatabaseUrl, givenRedisUrl } from "./engines";

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface RunState {
  serverUrl: string;
  database: string;
  redisUrl: string;
  redisPrefix: string;
  stopContainers: (() => Promise<void>)[];
}

/** True when something accepts TCP connections at `url`'s host and port. */
const listens = (url: string): Promise<boolean> => tcpAnswers(new URL(url).hostname, Number(new URL(url).port), 2000);

/** Redis for this run: REDIS_URL, else a testcontainers Redis when Docker answers, else the local one. */
async function runRedis(stopContainers: (() => Promise<void>)[]): Promise<string> {
  const given = givenRedisUrl();
  if (given !== undefined) return given;
  if (dockerIsAvailable()) {
    const { GenericContainer } = await import("testcontainers");
    const container = await new GenericContainer("redis:7-alpine").withExposedPorts(6379).start();
    stopContainers.push(async () => {
      await container.stop();
    });
    return `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
  }
  if (await listens(LOCAL_REDIS_URL)) return LOCAL_REDIS_URL;
  throw new Error("Integration tests need Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379), or run a Docker engine for testcontainers.");
}

declare global {
  // eslint-disable-next-line no-var
  var __MAILSTOP_RUN__: RunState | undefined;
}

/** Once per `jest` run: a PostgreSQL server, and a database of this run's own, migrated. */
export default async function globalSetup(): Promise<void> {
  let serverUrl = givenDatabaseUrl();
  const stopContainers: (() => Promise<void>)[] = [];
  if (serverUrl === undefined && !dockerIsAvailable()) {
    // Neither given nor containerisable: the conventional local server, when one answers.
    if (!(await answers(LOCAL_POSTGRES_URL))) {
      throw new Error("Integration tests need PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres), or run a Docker engine for testcontainers.");
    }
    serverUrl = LOCAL_POSTGRES_URL;
  }
  if (serverUrl === undefined) {
    const { GenericContainer, Wait } = await import("testcontainers");
    const container = await new GenericContainer("postgres:16-alpine")
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    serverUrl = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
    stopContainers.push(async () => {
      await container.stop();
    });
  }
  const { name, url } = await createFreshDatabase(serverUrl);
  const db = createDatabase(url, { maxConnections: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  process.env[RUN_DATABASE_ENV] = url;
  process.env[RUN_SERVER_ENV] = serverUrl;
  const redisUrl = await runRedis(stopContainers);
  process.env[RUN_REDIS_ENV] = redisUrl;
  process.env[RUN_ID_ENV] = randomBytes(4).toString("hex");
  stopContainers.push(await startRunDns());
  globalThis.__MAILSTOP_RUN__ = { serverUrl, database: name, redisUrl, redisPrefix: `mailstop-test-${process.env[RUN_ID_ENV]}`, stopContainers };
}
