import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { onCleanup } from "./cleanup";

/** How a child ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When it ended (Date.now()). */
  at: number;
}

/**
 * A process the drills started, its output appended to `logFile` (a restart of the same
 * service appends to the same file, so one file tells its whole story). Registered for
 * clean-up until it has exited.
 */
export class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<Exit>;
  private exitValue: Exit | null = null;

  constructor(
    readonly name: string,
    command: string,
    args: readonly string[],
    options: { env: NodeJS.ProcessEnv; cwd?: string; logFile: string },
  ) {
    const log = createWriteStream(options.logFile, { flags: "a" });
    log.write(`\n===== ${new Date().toISOString()} ${name}: ${command} ${args.join(" ")}\n`);
    this.process = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    this.process.stdout!.pipe(log, { end: false });
    this.process.stderr!.pipe(log, { end: false });
    const release = onCleanup(`child ${name}`, () => this.stop(5_000).then(() => undefined));
    this.exited = new Promise<Exit>((resolve) => {
      this.process.once("error", (error) => {
        if (this.process.pid === undefined) {
          log.write(`spawn failed: ${error.message}\n`);
          resolve((this.exitValue = { code: null, signal: null, at: Date.now() }));
        }
      });
      this.process.once("exit", (code, signal) => resolve((this.exitValue = { code, signal, at: Date.now() })));
    }).finally(() => {
      release();
      // Output may still be in the pipes; end the log once they are drained.
      void Promise.all([once(this.process.stdout!, "end"), once(this.process.stderr!, "end")]).finally(() => log.end());
    });
    this.logFile = options.logFile;
  }

  readonly logFile: string;

  get pid(): number {
    return this.process.pid ?? -1;
  }

  get exit(): Exit | null {
    return this.exitValue;
  }

  get running(): boolean {
    return this.exitValue === null;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.process.kill(signal);
  }

  /** kill -9, resolved once the process is gone. */
  async kill(): Promise<Exit> {
    this.signal("SIGKILL");
    return this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<Exit> {
    if (!this.running) return this.exitValue!;
    // A stopped process (SIGSTOP in a drill) cannot act on SIGTERM until it continues.
    this.signal("SIGCONT");
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  /** The log so far (for a failure message or a log-line condition). */
  log(): string {
    try {
      return readFileSync(this.logFile, "utf8");
    } catch {
      return "";
    }
  }
}

/** Resident set size of a process in bytes (Linux /proc), NaN once it is gone. */
export function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
