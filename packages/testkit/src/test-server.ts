import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { loadConfig } from "@mailstop/config";
import { freePort } from "@mailstop/deploy";
import { createLogger } from "@mailstop/logging";
import { type Target, startTarget } from "@mailstop/runtime";
import { runDnsEnv } from "./dns";
import { runDatabaseUrl, runRedisPrefix, runRedisUrl } from "./engines";
import { PGLITE_TEMPLATE_ENV } from "./embedded-global-setup";
import { testWorld } from "./world";
import { type TestS3, startTestS3 } from "./s3";
import { TEST_ADMIN_TOKEN, TEST_RATE_LIMITS, TEST_SECRETS_KEY, type TestServer, testServerHandle } from "./test-server-handle";

export * from "./test-server-handle";
/** A free TCP port on the loopback interface (the fleet's own helper, one implementation). */
export { freePort };

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
    if (inProcessOnly.length > 0) throw new Error(`${inProcessOnly.join(", ")}: in-process servers only; put the test in a *.in-process.int.test.ts file (or *.engines.int.test.ts)`);
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
    ...runDnsEnv(),
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

