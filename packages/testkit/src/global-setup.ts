import { createDatabase, migrateToLatest } from "@mailstop/db";
import { createFreshDatabase } from "./databases";
import pg from "pg";
import { LOCAL_POSTGRES_URL, RUN_DATABASE_ENV, RUN_SERVER_ENV, dockerIsAvailable, givenDatabaseUrl } from "./engines";

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
  stopContainer?: () => Promise<void>;
}

declare global {
  // eslint-disable-next-line no-var
  var __MAILSTOP_RUN__: RunState | undefined;
}

/** Once per `jest` run: a PostgreSQL server, and a database of this run's own, migrated. */
export default async function globalSetup(): Promise<void> {
  let serverUrl = givenDatabaseUrl();
  let stopContainer: (() => Promise<void>) | undefined;
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
    stopContainer = async () => {
      await container.stop();
    };
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
  globalThis.__MAILSTOP_RUN__ = { serverUrl, database: name, ...(stopContainer ? { stopContainer } : {}) };
}
