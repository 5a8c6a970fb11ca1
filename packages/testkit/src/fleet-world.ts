import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { S3BlobStore } from "@mailstop/blob-store";
import { loadConfig } from "@mailstop/config";
import { createDatabase } from "@mailstop/db";
import { type Fleet, type FleetOptions, findExecutable, startFleet } from "@mailstop/deploy";
import { runDnsEnv } from "./dns";
import { runDatabaseUrl, runRedisPrefix, runRedisUrl } from "./engines";
import { type TestS3, startTestS3 } from "./s3";
import { TEST_ADMIN_TOKEN, TEST_RATE_LIMITS, TEST_SECRETS_KEY, type TestServer, testServerHandle } from "./test-server-handle";

/** Set by the fleet world's global setup: the run's shared fleet, as JSON (SharedFleet). */
export const SHARED_FLEET_ENV = "MAILSTOP_TEST_FLEET";

/** What tests need to reach a fleet started elsewhere (the global setup's process). */
export interface SharedFleet {
  url: string;
  smtp: { receiving: number; capture: number };
  /** Every setting the fleet's services run with. */
  env: Record<string, string>;
  s3: { endpoint: string; port: number; directory: string };
  /** Every line the fleet's processes wrote, each prefixed with its process's name. */
  logFile: string;
}

/** The settings of a fleet on this run's engines: its own Redis prefix and S3 server. */
export function fleetEnv(s3: TestS3, env: Record<string, string> = {}): Record<string, string> {
  return {
    ...s3.env,
    DATABASE_URL: runDatabaseUrl(),
    REDIS_URL: runRedisUrl(),
    MAILSTOP_REDIS_PREFIX: `${runRedisPrefix()}-fleet-${randomBytes(4).toString("hex")}`,
    MAILSTOP_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY,
    ...TEST_RATE_LIMITS,
    ...runDnsEnv(),
    ...env,
  };
}

/** Starts a fleet for a test run or a test, with its own S3 server; `stop` stops both. */
export async function startTestFleet(
  env: Record<string, string> = {},
  options: { logFile?: string; replicas?: FleetOptions["replicas"] } = {},
): Promise<{ fleet: Fleet; s3: TestS3; env: Record<string, string> }> {
  const s3 = await startTestS3();
  const settings = fleetEnv(s3, env);
  const { logFile, replicas } = options;
  try {
    // The bucket exists before the services start, as compose's one-shot makes it.
    await new S3BlobStore(s3.settings).ensureReady();
    const onOutput = logFile === undefined ? undefined : (name: string, text: string) => appendFileSync(logFile, text.replace(/^(?=.)/gm, `${name} | `));
    return { fleet: await startFleet({ env: settings, ...(onOutput ? { onOutput } : {}), ...(replicas ? { replicas } : {}) }), s3, env: settings };
  } catch (error) {
    await s3.stop();
    throw error;
  }
}

/**
 * A describe block that starts a fleet of its own (startTestFleet): skipped, saying so, where
 * nginx is not installed, except under CI, whose machine must have it.
 */
export function describeWithFleet(name: string, body: () => void): void {
  if (findExecutable("nginx") !== null || process.env.CI) describe(name, body);
  else describe.skip(`${name} [nginx is not installed]`, body);
}

function sharedFleet(): SharedFleet {
  const value = process.env[SHARED_FLEET_ENV];
  if (!value) throw new Error(`${SHARED_FLEET_ENV} is not set: the fleet world runs through its jest global setup`);
  return JSON.parse(value) as SharedFleet;
}

/**
 * A TestServer on the split fleet. Servers with default settings share the run's fleet (tests
 * isolate themselves by project, as on any shared deployment), so its `stop` leaves it running;
 * a test with settings of its own (`env`) gets a fleet of its own. `running` is not available:
 * a test that needs the server's internals goes in a `*.in-process.int.test.ts` file.
 */
export async function startFleetTestServer(options: { env?: Record<string, string> }): Promise<TestServer> {
  const own = options.env !== undefined && Object.keys(options.env).length > 0 ? await startTestFleet(options.env) : null;
  const shared = own === null ? sharedFleet() : null;
  const url = own?.fleet.url ?? shared!.url;
  const smtp = own?.fleet.smtp ?? shared!.smtp;
  const env = own?.env ?? shared!.env;
  const config = loadConfig({
    ...env,
    MAILSTOP_PUBLIC_URL: url,
    MAILSTOP_HTTP_PORT: new URL(url).port,
    MAILSTOP_SMTP_PORT: String(smtp.receiving),
    MAILSTOP_CAPTURE_PORT: String(smtp.capture),
  });
  const db = createDatabase(env.DATABASE_URL!, { maxConnections: 4 });
  return testServerHandle({
    url,
    smtp,
    s3: own?.s3 ?? null,
    config,
    running: null,
    db,
    blobs: new S3BlobStore(config.s3!),
    logs: () => own?.fleet.logs() ?? readFileSync(shared!.logFile, "utf8"),
    printed: () => own?.fleet.logs() ?? readFileSync(shared!.logFile, "utf8"),
    stop: async () => {
      await db.destroy();
      if (own !== null) {
        await own.fleet.stop();
        await own.s3.stop();
      }
    },
  });
}
