import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { findExecutable } from "../fleet";

/** A command's outcome; `ok` when it exited 0. */
export interface Run {
  ok: boolean;
  status: number | null;
  stdout: string;
  stderr: string;
}

const asRun = (result: SpawnSyncReturns<string>): Run => ({
  ok: result.status === 0,
  status: result.status,
  stdout: result.stdout ?? "",
  stderr: (result.stderr ?? "") + (result.error ? String(result.error) : ""),
});

/** Runs a command to its end (output kept; `input` written to its stdin). */
export function run(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string | Buffer; timeoutMs?: number } = {}): Run {
  return asRun(
    spawnSync(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      input: options.input,
      encoding: "utf8",
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 256 * 1024 * 1024,
    }),
  );
}

/** Runs a command, its output streamed through `onLine` line by line; resolves when it ends. */
export function runStreaming(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const lines = (kind: "out" | "err") => {
      let pending = "";
      return (data: Buffer) => {
        const text = data.toString("utf8");
        if (kind === "out") stdout += text;
        else stderr += text;
        pending += text;
        const parts = pending.split("\n");
        pending = parts.pop() ?? "";
        for (const line of parts) options.onLine?.(line);
      };
    };
    child.stdout.on("data", lines("out"));
    child.stderr.on("data", lines("err"));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 1_200_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ ok: status === 0, status, stdout, stderr });
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, status: null, stdout, stderr: stderr + String(error) });
    });
  });
}

export const docker = (args: readonly string[], options: Parameters<typeof run>[2] = {}) => run("docker", args, options);

/** `docker info` answers: a daemon is there and this client may talk to it. */
export const engineAnswers = () => docker(["info", "--format", "{{.ServerVersion}}"], { timeoutMs: 20_000 }).ok;

/** The Docker engine the check runs on: the one that answered, or a dockerd it started. */
export interface Engine {
  /** How it came to answer, for the report. */
  readonly how: string;
  readonly startedHere: boolean;
  /** Stops dockerd when this check started it; leaves a daemon it found alone. */
  stop(): Promise<void>;
}

export const DOCKERD_LOG = "/var/log/mailstop-compose-check-dockerd.log";

/**
 * A Docker engine that answers: the running one, or `dockerd` started here with its defaults
 * (root: iptables, the docker0 bridge), its output in DOCKERD_LOG, waited for until
 * `docker info` answers (at most `deadlineMs`).
 */
export async function ensureEngine(deadlineMs = 60_000): Promise<Engine> {
  if (findExecutable("docker") === null) throw new Error("docker is not installed (Debian: apt-get install -y docker.io)");
  if (engineAnswers()) return { how: "a Docker engine was already answering", startedHere: false, stop: async () => undefined };
  const dockerd = findExecutable("dockerd") ?? (findExecutable("/usr/sbin/dockerd") ? "/usr/sbin/dockerd" : null);
  if (dockerd === null) throw new Error("no Docker engine answers and dockerd is not installed (Debian: apt-get install -y docker.io)");
  const log = openSync(DOCKERD_LOG, "a");
  const child = spawn(dockerd, [], { detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  child.unref();
  const started = Date.now();
  while (!engineAnswers()) {
    if (child.exitCode !== null || Date.now() - started > deadlineMs) {
      child.kill("SIGTERM");
      throw new Error(`dockerd did not answer within ${deadlineMs / 1000} s (its log: ${DOCKERD_LOG})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return {
    how: `started dockerd (pid ${child.pid}, log ${DOCKERD_LOG}); it answered in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    startedHere: true,
    async stop() {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    },
  };
}

/** `docker compose` (v2) when the client has it, else `docker-compose` (1.29): both read the file. */
export function composeCommand(): { command: string; prefix: string[] } {
  if (docker(["compose", "version"], { timeoutMs: 20_000 }).ok) return { command: "docker", prefix: ["compose"] };
  if (findExecutable("docker-compose") !== null) return { command: "docker-compose", prefix: [] };
  throw new Error("neither `docker compose` nor docker-compose is installed (Debian: apt-get install -y docker-compose)");
}

export const imageExists = (name: string) => docker(["image", "inspect", name], { timeoutMs: 30_000 }).ok;

/** The image's size in bytes (all its layers). */
export function imageSize(name: string): number {
  const result = docker(["image", "inspect", "--format", "{{.Size}}", name]);
  if (!result.ok) throw new Error(`no image ${name}: ${result.stderr}`);
  return Number(result.stdout.trim());
}
