import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type AdminClient, type MailstopClient, createAdminClient, createMailstopClient } from "@mailstop/client";
import type { Scope } from "@mailstop/core";
import { type Config, loadConfig } from "@mailstop/config";
import type { BlobStore } from "@mailstop/blob-store";
import type { Db } from "@mailstop/db";
import { freePort } from "@mailstop/deploy";
import { createLogger } from "@mailstop/logging";
import { type RunningTarget, type Target, startTarget } from "@mailstop/runtime";
import { runDatabaseUrl, runRedisPrefix, runRedisUrl } from "./engines";
import { PGLITE_TEMPLATE_ENV } from "./embedded-global-setup";
import { testWorld } from "./world";
import { type TestS3, startTestS3 } from "./s3";

/** The admin token every test server is started with. */
export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789abcdef0123456789";
/** The key every test fleet seals webhook secrets with (the monolith in tests generates its own). */
export const TEST_SECRETS_KEY = "7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec7e5751ec";

/** A free TCP port on the loopback interface (the fleet's own helper, one implementation). */
export { freePort };

const suffix = () => randomBytes(5).toString("hex");

/**
 * The rate limits test servers start with unless a test sets its own: far above what any suite
 * sends with one key (a suite creates 51 inboxes at once; the default write limit is 10/s,
 * bursts of 20). Suites of the limits themselves set small ones, or "" for the defaults.
 */
export const TEST_RATE_LIMITS = { MAILSTOP_RATE_LIMIT_READ: "100000", MAILSTOP_RATE_LIMIT_WRITE: "100000" } as const;

/** A project key no other test uses. */
export function uniqueProjectKey(prefix = "t"): string {
  return `${prefix}${randomBytes(6).toString("hex")}`;
}

/** A tag, run id or domain no other test uses. */
export const uniqueTag = (prefix = "tag") => `${prefix}.${suffix()}`;
export const uniqueRunId = (prefix = "run") => `${prefix}-${suffix()}`;
export const uniqueDomain = (prefix = "d") => `${prefix}-${suffix()}.example.com`;

export interface TestProject {
  organisationId: string;
  projectId: string;
  projectKey: string;
  apiKey: string;
  apiKeyId: string;
  smtp: { host: string; port: number; username: string; password: string };
  /** A typed client authenticated with this project's key. */
  client: MailstopClient;
}

export interface TestServer {
  url: string;
  /** With `mail: true`: the SMTP ports and the S3 server of this server. */
  smtp: { receiving: number; capture: number } | null;
  s3: TestS3 | null;
  config: Config;
  /** The started target in this process (not in the fleet world: see describeInProcess). */
  running: RunningTarget;
  db: Db;
  /** The object store the server writes to, as the server sees it (null without one). */
  blobs: BlobStore | null;
  admin: AdminClient;
  /** Everything the server logged so far, as JSON lines. */
  logs(): string;
  /** Text the server printed outside the log (first-start credentials). */
  printed(): string;
  client(apiKey?: string): MailstopClient;
  bootstrap(body?: { project_key?: string; scopes?: Scope[]; environment?: "test" | "live"; region?: "us" | "eu" }): Promise<TestProject>;
  stop(): Promise<void>;
}

/**
 * Starts a target in this process on a free port, against this run's database, with the
 * admin API enabled and logs captured (never printed).
 */
export async function startTestServer(
  options: {
    target?: Target;
    env?: Record<string, string>;
    databaseUrl?: string;
    mail?: boolean;
    s3?: TestS3;
    /** A data directory the caller owns (kept after stop), to start a server again on the same data. */
    dataDir?: string;
  } = {},
): Promise<TestServer> {
  if (testWorld() === "fleet") {
    const inProcessOnly = (["target", "databaseUrl", "s3", "dataDir"] as const).filter((option) => options[option] !== undefined);
    if (inProcessOnly.length > 0) throw new Error(`${inProcessOnly.join(", ")}: in-process servers only; mark the test describeInProcess or describeWithEngines`);
    const { startFleetTestServer } = await import("./fleet-world");
    return startFleetTestServer(options.env === undefined ? {} : { env: options.env });
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // On the embedded stand-ins every engine lives in a data directory of its own; an explicit
  // databaseUrl still means that PostgreSQL. With the real engines the directory serves a
  // monolith started without S3 or Redis (the mixed settings).
  const embedded = testWorld() === "embedded";
  const ownDataDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), "mailstop-test-")) : null;
  const dataDir = options.dataDir ?? ownDataDir!;
  const template = process.env[PGLITE_TEMPLATE_ENV];
  if (embedded && ownDataDir !== null && template) cpSync(template, join(ownDataDir, "pglite"), { recursive: true });
  const ownS3 = options.s3 === undefined && options.mail && !embedded ? await startTestS3() : null;
  const s3 = options.s3 ?? ownS3;
  const target = options.target ?? (options.mail || embedded ? "all" : "api");
  const smtpEnv: Record<string, string> =
    target === "all" || target === "smtp-edge"
      ? { MAILSTOP_SMTP_PORT: String(await freePort()), MAILSTOP_CAPTURE_PORT: String(await freePort()) }
      : {};
  // The operations listener of the targets without an HTTP listener (default 8026, shared by every test).
  const opsEnv: Record<string, string> = target === "smtp-edge" || target === "parser" ? { MAILSTOP_OPS_PORT: String(await freePort()) } : {};
  // A split target needs Redis (its rate limits are shared by every instance); the monolith
  // without mail keeps its in-process messaging (the mixed settings).
  const redisEnv: Record<string, string> = s3 !== null || (!embedded && target !== "all") ? { REDIS_URL: runRedisUrl(), MAILSTOP_REDIS_PREFIX: `${runRedisPrefix()}-${randomBytes(5).toString("hex")}` } : {};
  const enginesEnv: Record<string, string> = { ...(s3 === null ? {} : s3.env), ...redisEnv };
  const databaseUrl = options.databaseUrl ?? (embedded ? undefined : runDatabaseUrl());
  const config = loadConfig({
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    MAILSTOP_DATA_DIR: dataDir,
    MAILSTOP_HTTP_PORT: String(port),
    MAILSTOP_PUBLIC_URL: url,
    MAILSTOP_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    // A split target needs the fleet's shared key; the monolith generates its own under dataDir.
    ...(target === "all" ? {} : { MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY }),
    MAILSTOP_LOG_LEVEL: "info",
    ...TEST_RATE_LIMITS,
    ...smtpEnv,
    ...opsEnv,
    ...enginesEnv,
    ...options.env,
  });
  const logChunks: string[] = [];
  const printedChunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logChunks.push(String(chunk));
      done();
    },
  });
  const running = await startTarget(target, {
    config,
    logger: createLogger({ level: config.logLevel, destination }),
    print: (text) => printedChunks.push(text),
  });
  return testServerHandle({
    url,
    smtp: running.context.smtpPorts ?? null,
    s3,
    config,
    running,
    db: running.context.db!,
    blobs: running.context.blobs ?? null,
    logs: () => logChunks.join(""),
    printed: () => printedChunks.join("\n"),
    async stop() {
      await running.stop();
      await ownS3?.stop();
      if (ownDataDir !== null) rmSync(ownDataDir, { recursive: true, force: true });
    },
  });
}

/** A TestServer around a started mailstop, wherever it runs: adds the admin and API clients. */
export function testServerHandle(
  parts: Omit<TestServer, "running" | "admin" | "client" | "bootstrap"> & { running: RunningTarget | null },
): TestServer {
  const admin = createAdminClient({ baseUrl: parts.url, adminToken: TEST_ADMIN_TOKEN });
  const client = (apiKey?: string) => createMailstopClient({ baseUrl: parts.url, ...(apiKey === undefined ? {} : { apiKey }) });
  const { running, ...rest } = parts;
  return {
    ...rest,
    get running(): RunningTarget {
      if (running === null) throw new Error("this server runs in other processes (the fleet world): a test of its internals is describeInProcess");
      return running;
    },
    admin,
    client,
    async bootstrap(body = {}) {
      const { data, error } = await admin.POST("/admin/v1/bootstrap", { body: { project_key: uniqueProjectKey(), ...body } });
      if (error || !data) throw new Error(`bootstrap failed: ${JSON.stringify(error)}`);
      return {
        organisationId: data.organisation_id,
        projectId: data.project_id,
        projectKey: data.project_key,
        apiKey: data.api_key,
        apiKeyId: data.api_key_id,
        smtp: data.smtp,
        client: client(data.api_key),
      };
    },
  };
}
