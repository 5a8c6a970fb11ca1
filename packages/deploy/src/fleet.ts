import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { FLEET_JOBS, FLEET_SERVICES, READINESS_PATH, type FleetService, type FleetServiceName, type ServicePort } from "./fleet-services";
import { LOCATIONS_FILE, REPO_ROOT } from "./generated-files";
import { type ManagedProcess, type ProcessExit, describeExit, lastLines, spawnManaged } from "./managed-process";
import { writeStandaloneNginx } from "./nginx-config";
import { startOrphanGuard } from "./orphan-guard";
import { freePort, httpOk, waitUntil } from "./probes";

export interface FleetOptions {
  /**
   * Settings for every service: DATABASE_URL, REDIS_URL, S3_*, MAILSTOP_REDIS_PREFIX,
   * MAILSTOP_ADMIN_TOKEN and any other MAILSTOP_* variable. The fleet sets the ports,
   * MAILSTOP_HOST and MAILSTOP_DATA_DIR itself, and MAILSTOP_PUBLIC_URL (the edge) unless given.
   */
  env: Record<string, string>;
  /** Instances per service. Default: one each, unlike compose and Kubernetes (a laptop or CI runner has few cores). */
  replicas?: Partial<Record<FleetServiceName, number>>;
  /** Runs `mailstop migrate` before the services, as compose and the Kubernetes Job do. Default true. */
  migrate?: boolean;
  /** Receives every child's output as it arrives; by default output is only kept (see `logs`). */
  onOutput?: (process: string, text: string) => void;
  /** Deadline of the whole start in milliseconds. Default 120 000. */
  startTimeoutMs?: number;
  /** How long a child has after SIGTERM before SIGKILL, in milliseconds. Default 10 000. */
  stopGraceMs?: number;
  /** The nginx binary. Default: `nginx` on PATH. */
  nginx?: string;
  /**
   * Where the fleet is reached, on loopback: the edge (`http`), the first smtp-edge's receiving
   * port and capture relay. Each one left out is a free port picked at start (tests); `pnpm
   * fleet` gives the ports `pnpm start` listens on (`fleetListen`).
   */
  listen?: FleetListen;
}

export interface FleetListen {
  http?: number;
  smtp?: number;
  capture?: number;
}

/** A child of the fleet and where it listens, for tests that go around the edge. */
export interface FleetProcess {
  /** `api`, `waiter`, `smtp-edge`, `parser` (`parser-1`, `parser-2`… with several), `nginx`. */
  name: string;
  service: FleetServiceName | "nginx";
  pid: number | undefined;
  /** Its full command line: node, the `mailstop` bin and the table's arguments (nginx: its own). */
  command: readonly string[];
  /** The HTTP origin of an api or waiter instance. */
  httpUrl?: string;
  /** The SMTP listeners of an smtp-edge instance (several edges share the database). */
  smtp?: { receiving: number; capture: number };
}

export interface Fleet {
  /** The nginx edge's origin: every HTTP route, routed as the compose and Kubernetes edges route. */
  url: string;
  /** The SMTP listeners (of the first smtp-edge, when there are several). */
  smtp: { receiving: number; capture: number };
  processes: readonly FleetProcess[];
  /** The fleet's temporary directory (nginx's prefix, the data dir); removed by `stop`. */
  directory: string;
  /** A child's output so far (nginx: its error log too); without a name, every child's, each line prefixed. */
  logs(name?: string): string;
  /** Resolves when a child exits while the fleet should be running (never because of `stop`). */
  failed: Promise<{ process: string; exit: ProcessExit }>;
  /** SIGTERM to every child, SIGKILL after the grace period, then removes the fleet's directory. */
  stop(): Promise<void>;
}

/** The first `name` on PATH, or null. */
export function findExecutable(name: string, path = process.env.PATH ?? ""): string | null {
  if (name.includes("/")) return existsSync(name) ? resolve(name) : null;
  for (const dir of path.split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** The `mailstop` binary of @mailstop/cli: the same entry the image runs. */
export function mailstopBin(): string {
  const manifest = require.resolve("@mailstop/cli/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: { mailstop: string } };
  return resolve(dirname(manifest), bin.mailstop);
}

/**
 * The Node.js flags `mailstop serve` runs with (@mailstop/cli's bin/serve-flags.cjs): the fleet
 * gives them on the command line, as the image's entrypoint does, so the binary has no need to
 * replace itself and each child's command line is the one the fleet started.
 */
export function serveNodeFlags(): string[] {
  const manifest = require.resolve("@mailstop/cli/package.json");
  return (require(resolve(dirname(manifest), "bin", "serve-flags.cjs")) as { SERVE_NODE_FLAGS: string[] }).SERVE_NODE_FLAGS;
}

/** The variables a child needs from this process to run node at all; everything else is explicit. */
const INHERITED = ["PATH", "HOME", "TMPDIR", "LANG", "TZ"];

/**
 * Starts the fleet as separate processes on loopback: migrations, then each service of
 * FLEET_SERVICES running its table command (`mailstop serve --target <service>`) on free
 * ports, then nginx in front of api and waiter with the generated routing. Resolves once
 * every service is healthy and the edge answers; on any failure stops what started and throws
 * with the failing child's last lines.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const nginxBinary = findExecutable(options.nginx ?? "nginx");
  if (nginxBinary === null) throw new Error(`nginx is not installed (${options.nginx ?? "nginx"} is not on PATH): install nginx-light (Debian) or nginx.`);
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  const grace = options.stopGraceMs ?? 10_000;
  const directory = mkdtempSync(join(tmpdir(), "mailstop-fleet-"));
  const children: ManagedProcess[] = [];
  const processes: FleetProcess[] = [];
  let stopping = false;
  let nginxErrors = "";
  // If this process dies without stop() (a killed test runner), the guard stops the children.
  const guard = startOrphanGuard(directory);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      await Promise.all(children.map((child) => child.stop(grace)));
      nginxErrors = readNginxErrors(directory);
      rmSync(directory, { recursive: true, force: true });
      guard.release();
    })();
    return stopped;
  };

  let reportFailure: (failure: { process: string; exit: ProcessExit }) => void = () => undefined;
  const failed = new Promise<{ process: string; exit: ProcessExit }>((resolve) => (reportFailure = resolve));
  const spawnChild = (name: string, command: string, args: readonly string[], env: Record<string, string>) => {
    const child = spawnManaged(name, command, args, { env, cwd: REPO_ROOT, ...(options.onOutput ? { onOutput: options.onOutput } : {}) });
    children.push(child);
    guard.watch(child.pid);
    void child.exited.then((exit) => {
      if (!stopping && name !== "migrate") reportFailure({ process: name, exit });
    });
    return child;
  };
  /** The first child that has exited during start, as the error that ends the start. */
  const exitedEarly = (): Error | null => {
    const child = children.find((c) => c.name !== "migrate" && c.exit() !== null);
    if (child === undefined) return null;
    // nginx writes its complaints to its error log, not to its output.
    const output = child.name === "nginx" ? child.output() + readNginxErrors(directory) : child.output();
    return new Error(`${child.name} ${describeExit(child.exit()!)} while the fleet started:\n${lastLines(output)}`);
  };

  try {
    const edgePort = options.listen?.http ?? (await freePort());
    const url = `http://127.0.0.1:${edgePort}`;
    const inherited = Object.fromEntries(INHERITED.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])));
    const baseEnv: Record<string, string> = {
      ...inherited,
      MAILSTOP_LOG_LEVEL: "info",
      MAILSTOP_PUBLIC_URL: url,
      ...options.env,
      MAILSTOP_HOST: "127.0.0.1",
      MAILSTOP_DATA_DIR: join(directory, "data"),
    };
    const bin = mailstopBin();

    if (options.migrate ?? true) {
      const migrate = spawnChild("migrate", process.execPath, [bin, ...FLEET_JOBS.migrate.args], baseEnv);
      const exit = await Promise.race([migrate.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(0, deadline - Date.now())).unref())]);
      if (exit === null) throw new Error(`mailstop migrate did not finish within the start deadline:\n${lastLines(migrate.output())}`);
      if (exit.code !== 0) throw new Error(`mailstop migrate ${describeExit(exit)}:\n${lastLines(migrate.output())}`);
    }

    const health: { what: string; check: () => Promise<boolean> | boolean }[] = [];
    const upstreams: Record<"api" | "waiter", string[]> = { api: [], waiter: [] };
    let smtp: Fleet["smtp"] | undefined;
    const instances: { service: FleetService; name: string; ports: Awaited<ReturnType<typeof assignPorts>> }[] = [];
    for (const service of FLEET_SERVICES) {
      const count = options.replicas?.[service.name] ?? 1;
      for (let replica = 1; replica <= count; replica++) {
        // The first smtp-edge takes the SMTP ports the fleet is reached on; other replicas take free ones.
        const given = service.name === "smtp-edge" && replica === 1 ? { smtp: options.listen?.smtp, capture: options.listen?.capture } : {};
        instances.push({ service, name: count === 1 ? service.name : `${service.name}-${replica}`, ports: await assignPorts(service, given) });
      }
    }
    // Credentials the api hands out name the capture relay's port, which is the smtp-edge's.
    const capture = instances.find((instance) => instance.service.name === "smtp-edge")?.ports.capture;
    const publishedEnv: Record<string, string> =
      capture === undefined || options.env.MAILSTOP_CAPTURE_PUBLIC_PORT !== undefined ? {} : { MAILSTOP_CAPTURE_PUBLIC_PORT: String(capture) };
    for (const { service, name, ports } of instances) {
      const env = { ...baseEnv, ...publishedEnv, ...Object.fromEntries(service.ports.map((p) => [p.setting, String(ports[p.name])])) };
      const command = [process.execPath, ...serveNodeFlags(), bin, ...service.args];
      const child = spawnChild(name, command[0]!, command.slice(1), env);
      const entry: FleetProcess = { name, service: service.name, pid: child.pid, command };
      if (ports.http !== undefined) {
        entry.httpUrl = `http://127.0.0.1:${ports.http}`;
        if (service.name === "api" || service.name === "waiter") upstreams[service.name].push(`127.0.0.1:${ports.http}`);
      }
      if (service.name === "smtp-edge") {
        entry.smtp = { receiving: ports.smtp!, capture: ports.capture! };
        smtp ??= entry.smtp;
      }
      processes.push(entry);
      health.push({ what: `${name} ready`, check: readinessCheck(service, ports) });
    }
    if (smtp === undefined || upstreams.api.length === 0 || upstreams.waiter.length === 0) throw new Error("the fleet needs at least one api, waiter and smtp-edge");

    mkdirSync(join(directory, "nginx"));
    const nginxArgs = writeStandaloneNginx({ prefix: join(directory, "nginx"), locations: LOCATIONS_FILE, listen: { host: "127.0.0.1", port: edgePort }, upstreams });
    const nginx = spawnChild("nginx", nginxBinary, nginxArgs, baseEnv);
    processes.push({ name: "nginx", service: "nginx", pid: nginx.pid, command: [nginxBinary, ...nginxArgs] });
    health.push({ what: "nginx answering /health through the api", check: () => httpOk(`${url}/health`) });

    await Promise.all(health.map(({ what, check }) => waitUntil(what, check, deadline, exitedEarly)));

    const logs = (name?: string): string => {
      const nginxLog = () => (stopped === undefined ? readNginxErrors(directory) : nginxErrors);
      if (name === undefined) {
        return children
          .map((c) => `${c.output()}${c.name === "nginx" ? nginxLog() : ""}`.replace(/^(?=.)/gm, `[${c.name}] `))
          .join("");
      }
      const child = children.find((c) => c.name === name);
      if (child === undefined) throw new Error(`no fleet process ${name} (${children.map((c) => c.name).join(", ")})`);
      return child.output() + (name === "nginx" ? nginxLog() : "");
    };
    return { url, smtp, processes, directory, logs, failed, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

type AssignedPorts = Partial<Record<ServicePort["name"], number>>;

/** The given port of each listener of a service, or a free loopback port. */
async function assignPorts(service: FleetService, given: AssignedPorts = {}): Promise<AssignedPorts> {
  const ports: AssignedPorts = {};
  for (const port of service.ports) ports[port.name] = given[port.name] ?? (await freePort());
  return ports;
}

/** The service is ready (its engines answer), on the listener of its table's health check. */
function readinessCheck(service: FleetService, ports: AssignedPorts): () => Promise<boolean> {
  return () => httpOk(`http://127.0.0.1:${ports[service.health.port]}${READINESS_PATH}`);
}

function readNginxErrors(directory: string): string {
  try {
    return readFileSync(join(directory, "nginx", "error.log"), "utf8");
  } catch {
    return "";
  }
}
