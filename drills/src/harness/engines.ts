import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { startTestDns } from "@mailstop/testkit";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onCleanup } from "./cleanup";
import { PostgresCluster } from "./postgres";
import { RedisServer } from "./redis";
import { S3Server } from "./s3";
import { S3FaultProxy } from "./s3-fault-proxy";
import { say } from "./time";

/** The disposable engines of one run, and the run's temporary directory. */
export interface Engines {
  directory: string;
  logDir: string;
  postgres: PostgresCluster;
  redis: RedisServer;
  s3: S3Server;
  /** A proxy in front of s3, forwarding everything until a drill gives it a fault plan. */
  s3Proxy: S3FaultProxy;
  /**
   * A loopback DNS server answering NXDOMAIN to every name (MAILSTOP_DNS_SERVERS of every
   * target): the parser's authentication checks of the drills' mail never ask the machine's resolvers.
   */
  dnsServer: string;
}

/**
 * Starts a PostgreSQL cluster, a Redis and an s3rver of the run's own on free loopback ports,
 * in a temporary directory removed at the end (after the engines are stopped).
 */
export async function startEngines(): Promise<Engines> {
  const directory = mkdtempSync(join(tmpdir(), "mailstop-drills-"));
  // The postgres user must reach its cluster inside this root-owned directory.
  chmodSync(directory, 0o755);
  onCleanup("run directory", () => rmSync(directory, { recursive: true, force: true }));
  const logDir = join(directory, "logs");
  mkdirSync(logDir);
  say(`engines: starting PostgreSQL, Redis and s3rver under ${directory}`);
  const [postgres, redis, s3] = await Promise.all([
    PostgresCluster.create(directory, logDir),
    RedisServer.create(logDir),
    S3Server.create(join(directory, "s3"), logDir),
  ]);
  const s3Proxy = await S3FaultProxy.create(s3.port);
  const dns = await startTestDns();
  onCleanup("DNS server", () => dns.stop());
  say(`engines: PostgreSQL :${postgres.port}, Redis :${redis.port}, s3rver :${s3.port} (fault proxy ${s3Proxy.endpoint}), DNS ${dns.server}`);
  return { directory, logDir, postgres, redis, s3, s3Proxy, dnsServer: dns.server };
}
