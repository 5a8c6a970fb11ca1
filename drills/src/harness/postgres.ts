import { execFile, execFileSync } from "node:child_process";
import { appendFileSync, chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "@mailstop/deploy";
import { Client } from "pg";
import { onCleanup } from "./cleanup";
import { until } from "./time";

const run = promisify(execFile);
const BIN = process.env.DRILLS_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/**
 * A PostgreSQL cluster of the drills' own (initdb in the run's directory, a free port, a
 * socket directory of its own), so a drill can stop it with `-m immediate` without touching
 * the machine's server. PostgreSQL refuses to run as root: as root every command runs as the
 * `postgres` user, which owns the cluster's directory.
 */
export class PostgresCluster {
  private constructor(
    readonly port: number,
    private readonly dataDir: string,
    private readonly logFile: string,
  ) {}

  /** The server URL without a database name. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }

  static async create(directory: string, logDir: string): Promise<PostgresCluster> {
    const root = join(directory, "postgres");
    const dataDir = join(root, "data");
    const socketDir = join(root, "socket");
    mkdirSync(socketDir, { recursive: true });
    const owner = asPostgres();
    if (owner) for (const dir of [root, socketDir]) chownSync(dir, owner.uid, owner.gid);
    await pgCommand("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
    const port = await freePort();
    const cluster = new PostgresCluster(port, dataDir, join(logDir, "postgres.log"));
    // In the cluster's own configuration, so every later `pg_ctl start` (a drill's restart)
    // comes back on this port and never tries the machine's 5432.
    appendFileSync(
      join(dataDir, "postgresql.conf"),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${socketDir}'`,
        // The fleet's four processes each keep a pool; the default 100 is near with room for the drills' own.
        "max_connections = 300",
        "shared_buffers = 64MB",
        "",
      ].join("\n"),
    );
    await run("touch", [cluster.logFile]);
    if (owner) chownSync(cluster.logFile, owner.uid, owner.gid);
    await pgCommand("pg_ctl", ["-D", dataDir, "-l", cluster.logFile, "-w", "-t", "60", "start"]);
    onCleanup("postgres cluster", () => cluster.stop("immediate"));
    await cluster.waitReady();
    return cluster;
  }

  /** `pg_ctl stop -m <mode>`; `immediate` is a crash as far as the clients can tell. */
  async stop(mode: "immediate" | "fast"): Promise<void> {
    await pgCommand("pg_ctl", ["-D", this.dataDir, "-m", mode, "-w", "-t", "60", "stop"]).catch((error: Error) => {
      if (!/Is server running\?|PID file .* does not exist/.test(error.message)) throw error;
    });
  }

  /** Starts it again on the same port (after `stop`): crash recovery replays the WAL. */
  async start(): Promise<void> {
    await pgCommand("pg_ctl", ["-D", this.dataDir, "-l", this.logFile, "-w", "-t", "60", "start"]);
    await this.waitReady();
  }

  async waitReady(): Promise<void> {
    await until("PostgreSQL to accept queries", () => this.query("select 1").then(() => true, () => false), 60_000, 200);
  }

  /** One query on a short-lived connection (a drill reading the ledger). */
  async query<T extends Record<string, unknown>>(sql: string, params: unknown[] = [], database = "postgres"): Promise<T[]> {
    const client = new Client({ connectionString: `${this.url}/${database}`, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function asPostgres(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** Runs a PostgreSQL binary, as `postgres` when we are root. */
async function pgCommand(binary: string, args: string[]): Promise<void> {
  const command = join(BIN, binary);
  try {
    if (process.getuid?.() === 0) await run("runuser", ["-u", "postgres", "--", command, ...args], { cwd: "/" });
    else await run(command, args);
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${binary} ${args.at(-1)} failed: ${(stderr || stdout || String(error)).trim().slice(0, 800)}`);
  }
}
