import { type ChildProcess, spawn } from "node:child_process";

/** How a child ended: its exit code, or the signal that ended it, or why it never started. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/** A child process whose output is kept in memory, and which is stopped with a deadline. */
export interface ManagedProcess {
  /** `api`, `parser-2`, `nginx`, `migrate`… */
  readonly name: string;
  readonly pid: number | undefined;
  /** Its stdout and stderr so far, interleaved as they arrived (the last 4 MiB). */
  output(): string;
  /** Null while it runs. */
  exit(): ProcessExit | null;
  readonly exited: Promise<ProcessExit>;
  /** SIGTERM, then SIGKILL when it has not exited after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<ProcessExit>;
}

const OUTPUT_LIMIT = 4 * 1024 * 1024;

export interface SpawnOptions {
  env: Record<string, string>;
  cwd?: string;
  /** Called with every chunk of output, for callers that print it. */
  onOutput?: (name: string, text: string) => void;
}

export function spawnManaged(name: string, command: string, args: readonly string[], options: SpawnOptions): ManagedProcess {
  const child: ChildProcess = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
  const chunks: string[] = [];
  let size = 0;
  const take = (data: Buffer) => {
    const text = data.toString("utf8");
    chunks.push(text);
    size += text.length;
    while (size > OUTPUT_LIMIT && chunks.length > 1) size -= chunks.shift()!.length;
    options.onOutput?.(name, text);
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);

  let exit: ProcessExit | null = null;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("error", (error) => {
      // Spawning failed (ENOENT): no exit event follows.
      if (child.pid === undefined) resolve((exit = { code: null, signal: null, error }));
    });
    child.once("exit", (code, signal) => resolve((exit = { code, signal })));
  });

  return {
    name,
    pid: child.pid,
    output: () => chunks.join(""),
    exit: () => exit,
    exited,
    async stop(graceMs) {
      if (exit !== null) return exit;
      child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          if (exit === null) child.kill("SIGKILL");
          resolve();
        }, graceMs);
      });
      await Promise.race([exited, killed]);
      clearTimeout(timer);
      return exited;
    },
  };
}

/** `code 1`, `signal SIGKILL` or the spawn error, for messages. */
export function describeExit(exit: ProcessExit): string {
  if (exit.error !== undefined) return `could not start: ${exit.error.message}`;
  return exit.signal === null ? `exited with code ${exit.code}` : `was ended by ${exit.signal}`;
}

/** The last `count` lines of a child's output, for an error message. */
export function lastLines(text: string, count = 15): string {
  return text.trimEnd().split("\n").slice(-count).join("\n");
}
