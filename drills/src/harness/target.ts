import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort, mailstopBin } from "@mailstop/deploy";
import { Child } from "./child";
import { call, request } from "./api";
import type { Engines } from "./engines";
import { Service, type ServiceName } from "./service";
import { until, within } from "./time";

export type TargetKind = "monolith" | "embedded" | "fleet";
export const TARGET_KINDS: readonly TargetKind[] = ["monolith", "embedded", "fleet"];

/**
 * Seconds an accepted transaction may stay unparsed before the reconciler queues it again.
 * The product's default is 60 s; a few seconds here so a drill's recovery is quick.
 */
export const RECONCILE_GRACE_S = 3;

/** How a target is set up, beyond its kind. */
export interface TargetOptions {
  /** Its MAILSTOP_RECONCILE_GRACE_S (default RECONCILE_GRACE_S). */
  graceS?: number;
  /** The embedded target's MAILSTOP_DATA_DIR. */
  dataDir?: string;
  /** The fleet's SMTP edges (default 1), each a process on ports of its own; the load is spread over them. */
  smtpEdges?: number;
  /** The object store through the run's fault proxy (engines.s3Proxy) instead of s3rver itself. */
  s3ThroughProxy?: boolean;
  /** Settings added to every process's environment. */
  env?: Record<string, string>;
}

export interface Inbox {
  id: string;
  address: string;
}

/** A running mailstop (monolith, embedded monolith or split fleet) with a project of the drills'. */
export interface Target {
  kind: TargetKind;
  /** Its MAILSTOP_RECONCILE_GRACE_S. */
  graceS: number;
  /** Every process, in start order ("all" alone for a monolith). */
  services: Service[];
  service(name: ServiceName): Service;
  /** The process that runs the SMTP edge (the first, on a fleet with several). */
  edge: Service;
  /** Every process that runs an SMTP edge. */
  edges: Service[];
  smtpPort: number;
  /** Where reads go (the api) and where waits and streams go (the waiter): one origin for a monolith. */
  apiUrl: string;
  waitUrl: string;
  apiKey: string;
  /** Its database on the run's PostgreSQL and its bucket on the run's s3rver (null on the embedded target). */
  database: string | null;
  bucket: string | null;
  createInbox(tag: string): Promise<Inbox>;
  /** Accept-ledger rows still open, or null where the drills cannot read the database (PGlite). */
  openLedgerRows(): Promise<number | null>;
  /** The ledger row of a transaction, for a lost message's diagnosis (null on PGlite). */
  ledgerRow(transactionId: string): Promise<Record<string, unknown> | null | undefined>;
  /** Each stored copy of a Message-ID with its transaction's ledger row (null on PGlite): why a copy exists. */
  copiesOf(messageId: string): Promise<Record<string, unknown>[] | null>;
  /** Every service answers (each one restarted by a drill included). */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
  logDir: string;
}

let sequence = 0;

/**
 * Starts a target on the run's engines: a database, a Redis prefix and a bucket of its own
 * (the embedded monolith: a data directory of its own), every process on free loopback ports.
 */
export async function startTarget(kind: TargetKind, engines: Engines, options: TargetOptions = {}): Promise<Target> {
  const graceS = options.graceS ?? RECONCILE_GRACE_S;
  const run = `${kind}${++sequence}${randomBytes(2).toString("hex")}`;
  const logDir = join(engines.logDir, run);
  mkdirSync(logDir, { recursive: true });
  const adminToken = randomBytes(24).toString("hex");
  const database = `drills_${run}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/root",
    MAILSTOP_HOST: "127.0.0.1",
    MAILSTOP_LOG_LEVEL: "info",
    MAILSTOP_DNS_SERVERS: engines.dnsServer,
    MAILSTOP_ADMIN_TOKEN: adminToken,
    // The fleet's processes must share one; the monolith would generate its own.
    MAILSTOP_SECRETS_KEY: randomBytes(32).toString("hex"),
    MAILSTOP_RECONCILE_GRACE_S: String(graceS),
    // A killed parser's jobs come back when its claim lapses; 10 s instead of 30 keeps a
    // drill short while a busy two-core machine still renews claims in time.
    MAILSTOP_JOB_LOCK_MS: "10000",
    // A drill checks every message of thousands with one key: it tests recovery, not the
    // per-key rate limit (50 reads and 10 writes per second by default).
    MAILSTOP_RATE_LIMIT_READ: "1000000",
    MAILSTOP_RATE_LIMIT_WRITE: "1000000",
    ...(kind === "embedded"
      ? { MAILSTOP_DATA_DIR: options.dataDir ?? join(engines.directory, `data-${run}`) }
      : {
          DATABASE_URL: `${engines.postgres.url}/${database}`,
          REDIS_URL: engines.redis.url,
          MAILSTOP_REDIS_PREFIX: `drills-${run}`,
          S3_ENDPOINT: options.s3ThroughProxy ? engines.s3Proxy.endpoint : engines.s3.endpoint,
          S3_ACCESS_KEY: "S3RVER",
          S3_SECRET_KEY: "S3RVER",
          S3_BUCKET: `drills-${run.toLowerCase()}`,
        }),
    ...options.env,
  };

  const services: Service[] = [];
  const stop = async () => {
    for (const service of [...services].reverse()) await service.stop();
  };
  try {
    if (kind !== "embedded") await engines.postgres.query(`create database ${database}`);
    if (kind === "fleet") {
      // As compose and the Kubernetes Job do: migrations once, before the services.
      await runMigrate(env, logDir);
      const edges = Array.from({ length: options.smtpEdges ?? 1 }, (_, i) => i);
      for (const name of ["api", "waiter", "smtp-edge", "parser"] as const) {
        for (const copy of name === "smtp-edge" ? edges : [0]) {
          // The smtp-edge and the parser each have an operations listener (/health, /ready, /metrics).
          const ports = name === "api" || name === "waiter" ? { http: await freePort() } : name === "smtp-edge" ? { smtp: await freePort(), capture: await freePort(), ops: await freePort() } : { ops: await freePort() };
          services.push(new Service(name, env, ports, join(logDir, `${name}${copy === 0 ? "" : `-${copy + 1}`}.log`)));
        }
      }
    } else {
      services.push(new Service("all", env, { http: await freePort(), smtp: await freePort(), capture: await freePort() }, join(logDir, "all.log")));
    }
    // The split services start together, as an orchestrator starts them.
    await Promise.all(services.map((service) => service.start()));

    const service = (name: ServiceName) => {
      const found = services.find((s) => s.name === name) ?? services.find((s) => s.name === "all");
      if (found === undefined) throw new Error(`no ${name} in ${kind}`);
      return found;
    };
    const edge = service("smtp-edge");
    const edges = services.filter((s) => s.name === "smtp-edge" || s.name === "all");
    const apiUrl = service("api").httpUrl!;
    const waitUrl = service("waiter").httpUrl!;
    const project = await call<{ project_id: string; api_key: string }>(apiUrl, adminToken, "POST", "/admin/v1/bootstrap", { project_key: `drills${run}`.toLowerCase() });
    // Held waits of the drills go past the default allowance of concurrent waits.
    await call(apiUrl, adminToken, "PATCH", `/admin/v1/projects/${project.project_id}`, { limits: { max_concurrent_waits: 10_000 } });
    const apiKey = project.api_key;
    const ledger = async <T extends Record<string, unknown>>(sql: string, params: unknown[]) => (kind === "embedded" ? null : engines.postgres.query<T>(sql, params, database));

    const target: Target = {
      kind,
      graceS,
      services,
      service,
      edge,
      edges,
      smtpPort: edge.ports.smtp!,
      apiUrl,
      waitUrl,
      apiKey,
      database: kind === "embedded" ? null : database,
      bucket: env.S3_BUCKET ?? null,
      logDir,
      createInbox: (tag) => call<Inbox>(apiUrl, apiKey, "POST", "/v1/inboxes", { tag }),
      async openLedgerRows() {
        const rows = await ledger<{ n: number }>("select count(*)::int as n from accepted_transactions where state = 'open'", []);
        return rows === null ? null : rows[0]!.n;
      },
      async ledgerRow(transactionId) {
        const rows = await ledger("select id, state, requeues, accepted_at, requeued_at, done_at, deliveries from accepted_transactions where id = $1", [transactionId]);
        return rows === null ? null : rows[0];
      },
      async copiesOf(messageId) {
        // The raw key names the transaction (raw/<project>/<transaction>…).
        return ledger(
          `select m.inbox_id, m.raw_key, m.received_at, t.state, t.requeues, t.accepted_at, t.requeued_at, t.done_at
             from messages m left join accepted_transactions t on position(t.id in m.raw_key) > 0
            where m.message_id = $1 order by m.received_at`,
          [`<${messageId}>`],
        );
      },
      async healthy() {
        for (const s of services) {
          if (!s.running) return false;
          if (s.httpUrl !== undefined && (await request(s.httpUrl, "", "GET", "/health", undefined, 5_000).catch(() => ({ status: 0 }))).status !== 200) return false;
        }
        return true;
      },
      stop,
    };
    await warmUpWaits(target);
    return target;
  } catch (error) {
    await stop();
    throw error;
  }
}

async function runMigrate(env: Record<string, string>, logDir: string): Promise<void> {
  const child = new Child("migrate", process.execPath, [mailstopBin(), "migrate"], { env, cwd: join(__dirname, "..", "..", ".."), logFile: join(logDir, "migrate.log") });
  const exit = await within("mailstop migrate", child.exited, 120_000).catch(async (error: Error) => {
    await child.kill();
    throw error;
  });
  if (exit.code !== 0) throw new Error(`mailstop migrate failed (code ${exit.code}):\n${child.log().slice(-2000)}`);
}

/**
 * One short wait before a drill relies on waits: the first wait of a process sets up its
 * subscriber connection (bench/src/targets/mailstop.ts notes a race there that answers 500
 * once; a retry works).
 */
export async function warmUpWaits(target: Target): Promise<void> {
  const inbox = await target.createInbox("warm-up");
  await until(
    "a first wait to answer",
    async () => (await request(target.waitUrl, target.apiKey, "POST", "/v1/messages/wait", { inbox: inbox.id, timeout_ms: 1 }).catch(() => ({ status: 0 }))).status === 200,
    30_000,
    200,
  );
}
