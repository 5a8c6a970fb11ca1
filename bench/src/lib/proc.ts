import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createConnection } from "node:net";
import { join } from "node:path";
import { sleep, until } from "./stats";

/** A free TCP port on the loopback interface (the fleet's helper: one implementation). */
export { freePort } from "@mailstop/deploy";

/** A server process started by the benchmark, its output kept in a log file. */
export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export function startChild(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; logDir: string }): Child {
  const logFile = join(options.logDir, `${name}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = once(child, "exit");
  return {
    name,
    process: child,
    pid: child.pid!,
    logFile,
    async stop(graceMs = 5000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

/** Linux's clock ticks per second for /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

/** CPU time (user and system) a process has used so far, in seconds, all its threads included (Linux /proc). */
export async function cpuSeconds(pid: number): Promise<number> {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** `body`'s result and the CPU seconds each of `pids` used while it ran. */
export async function withCpuOf<T>(pids: readonly number[], body: () => Promise<T>): Promise<{ result: T; cpuSeconds: number[] }> {
  const before = await Promise.all(pids.map(cpuSeconds));
  const result = await body();
  const after = await Promise.all(pids.map(cpuSeconds));
  return { result, cpuSeconds: after.map((seconds, index) => seconds - before[index]!) };
}

/** Bytes in a MB, for the RSS figures of the table. */
export const MB = 1024 * 1024;

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : Number.NaN;
}

/** Waits until `url` answers 2xx, failing early when the child exits. */
export async function waitForHttp(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  await until(
    async () => {
      if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}; see ${child.logFile}`);
      try {
        const response = await fetch(url);
        return response.ok;
      } catch {
        return false;
      }
    },
    `${child.name} at ${url}`,
    timeoutMs,
    100,
  );
}

/** Whether a loopback TCP port accepts a connection now. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** Waits until a TCP port accepts connections. */
export async function waitForPort(child: Child, port: number, timeoutMs = 30_000): Promise<void> {
  await until(
    async () => {
      if (child.process.exitCode !== null) throw new Error(`${child.name} exited with ${child.process.exitCode}; see ${child.logFile}`);
      return acceptsConnections(port);
    },
    `${child.name} on port ${port}`,
    timeoutMs,
    100,
  );
  await sleep(10);
}
