import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Fleet, startFleet } from "@mailstop/deploy";
import { Redis } from "ioredis";
import { call } from "../lib/api";
import { deleteRedisKeys, onPostgres } from "../lib/engines";
import { type Child, freePort, startChild, waitForPort } from "../lib/proc";
import { type ApiTarget, BENCH_SERVER_ENV } from "./mailstop";

const REPO = join(__dirname, "..", "..", "..");
const S3_SERVER = join(REPO, "packages", "deploy", "src", "s3-server.main.ts");

export interface MailstopFleetTarget extends ApiTarget {
  /** The fleet's processes by name (`smtp-edge`, `parser`, `api`, `waiter`, `nginx`) with their pids. */
  fleet: Fleet;
}

/**
 * The split fleet as `pnpm fleet` runs it (one smtp-edge, parser, api and waiter, each a process,
 * behind the nginx edge) on PostgreSQL (a database of its own), Redis (a prefix of its own) and
 * an s3rver in a process of its own: the same engines as the `mailstop` column, the work spread
 * over processes instead of one.
 */
export async function startMailstopFleet(options: { logDir: string; databaseServer: string; redisUrl: string }): Promise<MailstopFleetTarget> {
  const run = randomBytes(4).toString("hex");
  const database = `mailstop_bench_fleet_${run}`;
  const redisPrefix = `mailstop-bench-fleet-${run}`;
  const adminToken = randomBytes(24).toString("hex");
  const s3Directory = await mkdtemp(join(tmpdir(), "mailstop-bench-fleet-s3-"));
  const s3Port = await freePort();
  let s3: Child | undefined;
  let fleet: Fleet | undefined;

  async function cleanUp(): Promise<void> {
    await fleet?.stop().catch(() => undefined);
    await s3?.stop(10_000).catch(() => undefined);
    await rm(s3Directory, { recursive: true, force: true });
    await onPostgres(options.databaseServer, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await deleteRedisKeys(new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }), redisPrefix);
  }

  try {
    // `mailstop migrate` (the fleet's first step, as compose's) expects the database to exist.
    await onPostgres(options.databaseServer, `CREATE DATABASE ${database}`);
    s3 = startChild("mailstop-fleet-s3rver", process.execPath, ["--import", "tsx", S3_SERVER, String(s3Port), s3Directory], { logDir: options.logDir });
    await waitForPort(s3, s3Port);
    fleet = await startFleet({
      env: {
        DATABASE_URL: `${options.databaseServer}/${database}`,
        REDIS_URL: options.redisUrl,
        MAILSTOP_REDIS_PREFIX: redisPrefix,
        S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
        S3_ACCESS_KEY: "S3RVER",
        S3_SECRET_KEY: "S3RVER",
        MAILSTOP_ADMIN_TOKEN: adminToken,
        MAILSTOP_SECRETS_KEY: randomBytes(32).toString("hex"),
        ...BENCH_SERVER_ENV,
      },
    });
    const url = fleet.url;
    const project = await call<{ project_id: string; api_key: string }>(url, adminToken, "POST", "/admin/v1/bootstrap", { project_key: `fleet${run}` });
    await call(url, adminToken, "PATCH", `/admin/v1/projects/${project.project_id}`, { limits: { max_concurrent_waits: 20_000 } });
    const api = <T>(method: string, path: string, body?: unknown) => call<T>(url, project.api_key, method, path, body);
    const api0 = fleet.processes.find((process) => process.service === "api");
    const createInbox = (tag: string) => api<{ id: string; address: string }>("POST", "/v1/inboxes", { tag });
    return {
      name: "mailstop-fleet",
      smtpPort: fleet.smtp.receiving,
      pid: api0?.pid ?? 0,
      url,
      apiKey: project.api_key,
      fleet,
      createInbox,
      async destination(tag) {
        const inbox = await createInbox(tag);
        return { address: inbox.address, visible: async () => (await api<{ message_count: number }>("GET", `/v1/inboxes/${inbox.id}`)).message_count };
      },
      stop: cleanUp,
    };
  } catch (error) {
    await cleanUp().catch(() => undefined);
    throw error;
  }
}
