import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { call } from "../lib/api";
import { deleteRedisKeys, onPostgres } from "../lib/engines";
import { type Child, freePort, startChild, waitForHttp, waitForPort } from "../lib/proc";
import type { Destination, Target, TargetName } from "./target";

const REPO = join(__dirname, "..", "..", "..");
const S3_SERVER = join(REPO, "packages", "deploy", "src", "s3-server.main.ts");
const PROBE = join(__dirname, "..", "servers", "probe.cjs");

export interface MailstopOptions {
  logDir: string;
  databaseServer: string;
  redisUrl: string;
  /** Writes a V8 CPU profile of the server into this directory when it stops. */
  cpuProfileDir?: string;
  /**
   * "s3" (default): an s3rver of its own. "directory": no S3_ENDPOINT, so the monolith keeps
   * objects in its data directory (its embedded object store) while PostgreSQL and Redis stay
   * real, which shows how much of a figure is the S3 stand-in's. "embedded": no engine at all,
   * what `pnpm start` runs on a laptop (PGlite, in-process jobs and bus, the directory store).
   */
  objectStore?: "s3" | "directory" | "embedded";
  /** Leaves the database in place at the end (its name is printed), for EXPLAIN ANALYZE. */
  keepDatabase?: boolean;
  /** Settings of this target's own, for every process it starts (checks-cost: MAILSTOP_CHECKS). */
  env?: Record<string, string>;
}

/** One mailstop process: its HTTP origin, its pid, and the probe preloaded into it. */
export interface ServerProcess {
  /** "all" for the monolith, "waiter", "api" or "smtp-edge" for a split process beside it. */
  role: "all" | SplitRole | "smtp-edge";
  url: string;
  pid: number;
  /** Memory and event-loop delay as the server process sees them; `reset` starts a new window. */
  probe(reset?: boolean): Promise<{ rss: number; event_loop_delay_ms: { p50: number; p99: number; max: number } }>;
  /** Runs a full garbage collection in the process (before a memory reading). */
  collectGarbage(): Promise<void>;
  /** With --profile: a CPU profile of the process during `phase` only. */
  profilePhase<T>(phase: string, body: () => Promise<T>): Promise<T>;
  /** With --profile: a heap snapshot of the process now, named `name`. */
  heapSnapshot(name: string): Promise<void>;
}

/** The split targets the bench runs beside the monolith, on its engines. */
export type SplitRole = "waiter" | "api";

/** A mailstop the scenarios can call: its API origin, a key, and inboxes. */
export interface ApiTarget extends Target {
  url: string;
  apiKey: string;
  createInbox(tag: string): Promise<{ id: string; address: string }>;
}

export interface MailstopTarget extends ApiTarget, ServerProcess {
  /** The s3rver's process, for its share of the CPU (null on the directory and embedded stores). */
  s3Pid: number | null;
  projectKey: string;
  projectId: string;
  redis: Redis;
  redisPrefix: string;
  /**
   * A split waiter (`mailstop serve --target waiter`) on the same engines, stopped with the
   * target: what a fleet's waiter holds, apart from the other services' memory.
   */
  startWaiter(): Promise<ServerProcess>;
  /** A split `--target <role>` process on the same engines with settings of its own (`env`), stopped with the target. */
  startSplit(role: SplitRole, env?: Record<string, string>): Promise<ServerProcess>;
  /**
   * A split `--target smtp-edge` on the same engines with settings of its own, stopped with the
   * target: its `url` is its operations listener; the monolith's parser parses what it accepts.
   */
  startEdge(env?: Record<string, string>): Promise<ServerProcess & { smtpPort: number }>;
  /** A call to the admin API with the target's admin token. */
  admin<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Every message id of an inbox, through `GET /v1/messages` (pages of 200). */
  listIds(inbox: string): Promise<string[]>;
}

/** Settings every mailstop the bench starts shares (the monolith, its split processes, the fleet). */
export const BENCH_SERVER_ENV = {
  // Outside `local`, STARTTLS is offered (a self-signed certificate), which the connect
  // scenario's STARTTLS row measures; the plain rows ignore it.
  MAILSTOP_ENVIRONMENT: "staging",
  // The bench measures the server's throughput with one key, not its per-key rate limit
  // (50 reads and 10 writes per second by default), which would cap every read scenario.
  MAILSTOP_RATE_LIMIT_READ: "1000000",
  MAILSTOP_RATE_LIMIT_WRITE: "1000000",
};

const TARGET_OF_STORE = { s3: "mailstop", directory: "mailstop-dir", embedded: "mailstop-embedded" } as const satisfies Record<NonNullable<MailstopOptions["objectStore"]>, TargetName>;

/**
 * mailstop's monolithic target (`mailstop serve --target all`, what `pnpm start` runs) on the
 * real engines: PostgreSQL (a database of its own, dropped at the end), Redis (keys under a
 * prefix of its own, deleted at the end) and an s3rver in its own process. The server runs in
 * its own process, so what it costs is measured apart from the load generator.
 */
export async function startMailstop(options: MailstopOptions): Promise<MailstopTarget> {
  const run = randomBytes(4).toString("hex");
  const database = `mailstop_bench_${run}`;
  const redisPrefix = `mailstop-bench-${run}`;
  const adminToken = randomBytes(24).toString("hex");
  // Shared by the monolith and any split process beside it (a split api needs it to start).
  const secretsKey = randomBytes(32).toString("hex");
  const [httpPort, smtpPort, capturePort, s3Port, probePort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const objectStore = options.objectStore ?? "s3";
  const s3Directory = await mkdtemp(join(tmpdir(), objectStore === "s3" ? "mailstop-bench-s3-" : "mailstop-bench-data-"));
  const name = TARGET_OF_STORE[objectStore];
  let s3Pid: number | null = null;
  const children: Child[] = [];
  const redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });

  async function cleanUp(): Promise<void> {
    for (const child of children.reverse()) await child.stop(10_000).catch(() => undefined);
    await rm(s3Directory, { recursive: true, force: true });
    if (options.keepDatabase) process.stderr.write(`bench: kept database ${options.databaseServer}/${database}; drop it when done\n`);
    else await onPostgres(options.databaseServer, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await deleteRedisKeys(redis, redisPrefix);
  }

  try {
    if (objectStore === "s3") {
      const s3 = startChild("s3rver", process.execPath, ["--import", "tsx", S3_SERVER, String(s3Port), s3Directory], { logDir: options.logDir });
      children.push(s3);
      s3Pid = s3.pid;
      await waitForPort(s3, s3Port);
    }
    const objectEnv =
      objectStore === "s3"
        ? { S3_ENDPOINT: `http://127.0.0.1:${s3Port}`, S3_ACCESS_KEY: "S3RVER", S3_SECRET_KEY: "S3RVER" }
        : { MAILSTOP_DATA_DIR: s3Directory };

    /**
     * Starts `mailstop serve --target <role>` through the `mailstop` binary (what the image and
     * the fleet run: tsx's require hook, no loader thread) with the probe preloaded, once it
     * answers /health (and, with an SMTP port, once that listens).
     */
    async function spawnServer(role: ServerProcess["role"], ports: { http: number; probe: number; smtp?: number; capture?: number }, extraEnv: Record<string, string> = {}) {
      const nodeArgs = ["--require", PROBE];
      if (options.cpuProfileDir) nodeArgs.push("--cpu-prof", "--cpu-prof-dir", options.cpuProfileDir);
      const logName = `${name}${role === "all" ? "" : `-${role}-${ports.http}`}`;
      const child = startChild(logName, process.execPath, [...nodeArgs, join(REPO, "packages/cli/bin/mailstop.cjs"), "serve", "--target", role], {
        cwd: REPO,
        logDir: options.logDir,
        env: {
          // Empty counts as unset: the embedded target runs on its stand-ins.
          DATABASE_URL: objectStore === "embedded" ? "" : `${options.databaseServer}/${database}`,
          REDIS_URL: objectStore === "embedded" ? "" : options.redisUrl,
          MAILSTOP_REDIS_PREFIX: redisPrefix,
          ...objectEnv,
          MAILSTOP_ADMIN_TOKEN: adminToken,
          MAILSTOP_SECRETS_KEY: secretsKey,
          MAILSTOP_HTTP_PORT: String(ports.http),
          ...(ports.smtp ? { MAILSTOP_SMTP_PORT: String(ports.smtp), MAILSTOP_CAPTURE_PORT: String(ports.capture) } : {}),
          MAILSTOP_HOST: "127.0.0.1",
          ...BENCH_SERVER_ENV,
          BENCH_PROBE_PORT: String(ports.probe),
          ...options.env,
          ...extraEnv,
        },
      });
      children.push(child);
      const origin = `http://127.0.0.1:${ports.http}`;
      await waitForHttp(child, `${origin}/health`, 120_000);
      if (ports.smtp) await waitForPort(child, ports.smtp, 60_000);
      const processOf: ServerProcess = {
        role,
        url: origin,
        pid: child.pid,
        async probe(reset = false) {
          return (await (await fetch(`http://127.0.0.1:${ports.probe}/${reset ? "reset" : ""}`)).json()) as Awaited<ReturnType<ServerProcess["probe"]>>;
        },
        async collectGarbage() {
          await fetch(`http://127.0.0.1:${ports.probe}/gc`);
        },
        async profilePhase(phase, body) {
          if (!options.cpuProfileDir) return body();
          await fetch(`http://127.0.0.1:${ports.probe}/profile/start`);
          try {
            return await body();
          } finally {
            const file = join(options.cpuProfileDir, `${phase}.${role}.cpuprofile`);
            await fetch(`http://127.0.0.1:${ports.probe}/profile/stop?file=${encodeURIComponent(file)}`);
          }
        },
        async heapSnapshot(name) {
          if (!options.cpuProfileDir) return;
          const file = join(options.cpuProfileDir, `${name}.${role}.heapsnapshot`);
          await fetch(`http://127.0.0.1:${ports.probe}/heap-snapshot?file=${encodeURIComponent(file)}`);
        },
      };
      return processOf;
    }

    const server = await spawnServer("all", { http: httpPort, probe: probePort, smtp: smtpPort, capture: capturePort });
    const url = server.url;

    const project = await call<{ project_id: string; project_key: string; api_key: string }>(url, adminToken, "POST", "/admin/v1/bootstrap", {
      project_key: `bench${run}`,
    });
    // 10,000 held waits need more than the default allowance of 100 concurrent waits.
    await call(url, adminToken, "PATCH", `/admin/v1/projects/${project.project_id}`, { limits: { max_concurrent_waits: 20_000 } });
    const api = <T>(method: string, path: string, body?: unknown) => call<T>(url, project.api_key, method, path, body);
    const warmInbox = await api<{ id: string; address: string }>("POST", "/v1/inboxes", { tag: "warm-up" });
    /**
     * One short wait before any figure is taken. The first wait or stream of a process creates
     * its Redis subscriber connection, and that first subscribe can race the connection's ready
     * check and answer 500 (a known bug of the Redis bus, reported; retrying works).
     */
    async function warmUp(origin: string): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        try {
          await call(origin, project.api_key, "POST", "/v1/messages/wait", { inbox: warmInbox.id, timeout_ms: 1 });
          return;
        } catch (error) {
          if (attempt >= 10) throw error;
          process.stderr.write(`bench: warm-up wait on ${origin} failed (attempt ${attempt}), retrying: ${String(error).slice(0, 160)}\n`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
    await warmUp(url);

    const target: MailstopTarget = {
      name,
      s3Pid,
      smtpPort,
      ...server,
      apiKey: project.api_key,
      projectKey: project.project_key,
      projectId: project.project_id,
      redis,
      redisPrefix,
      startWaiter: () => target.startSplit("waiter"),
      async startSplit(role, env = {}) {
        const [http, probe] = [await freePort(), await freePort()];
        const split = await spawnServer(role, { http, probe }, env);
        if (role === "waiter") await warmUp(split.url);
        return split;
      },
      async startEdge(env = {}) {
        const [ops, probe, smtp, capture] = [await freePort(), await freePort(), await freePort(), await freePort()];
        // The operations listener answers /health, which spawnServer waits for on the "http" port.
        const edge = await spawnServer("smtp-edge", { http: ops, probe, smtp, capture }, { MAILSTOP_OPS_PORT: String(ops), ...env });
        return { ...edge, smtpPort: smtp };
      },
      admin: (method, path, body) => call(url, adminToken, method, path, body),
      createInbox: (tag) => api<{ id: string; address: string }>("POST", "/v1/inboxes", { tag }),
      async listIds(inbox) {
        const ids: string[] = [];
        let cursor: string | null = null;
        do {
          const query = new URLSearchParams({ inbox, limit: "200", ...(cursor ? { cursor } : {}) });
          const page: { data?: Array<{ id: string }>; messages?: Array<{ id: string }>; next_cursor: string | null } = await api("GET", `/v1/messages?${query}`);
          ids.push(...(page.data ?? page.messages ?? []).map((m) => m.id));
          cursor = page.next_cursor;
        } while (cursor);
        return ids;
      },
      async destination(tag): Promise<Destination> {
        const inbox = await target.createInbox(tag);
        return {
          address: inbox.address,
          visible: async () => (await api<{ message_count: number }>("GET", `/v1/inboxes/${inbox.id}`)).message_count,
        };
      },
      stop: cleanUp,
    };
    await redis.connect();
    return target;
  } catch (error) {
    await cleanUp().catch(() => undefined);
    throw error;
  }
}
