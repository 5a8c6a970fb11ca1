import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { TEST_SECRETS_KEY, eventually, freePort } from "@mailstop/testkit";

const REPO = join(__dirname, "..", "..", "..");

/**
 * Compiles the bundle `pnpm start` and the image run (a test of what they load or arm checks
 * it, not the sources), unless it is current: `pnpm test` has just built it, and other files
 * read the bundle while this one runs (a rebuild replaces its files one by one).
 */
export function buildBundle(): void {
  const { staleReason } = require(join(REPO, "packages", "cli", "bin", "compiled.cjs")) as { staleReason(): string | null };
  if (staleReason() === null) return;
  execFileSync(process.execPath, [join(REPO, "packages", "cli", "bin", "build-mailstop.cjs")], { stdio: "ignore", timeout: 60_000 });
}

/** A `mailstop serve` process with a reporter preloaded, answering /health. */
export interface ServeProcess {
  /** Its HTTP origin. */
  url: string;
  /** What it has printed so far. */
  output(): string;
  /**
   * Sends SIGUSR2, which the preloaded reporter answers by writing `reportFile` whole; returns
   * that file's JSON.
   */
  report<T>(): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts the compiled `mailstop serve --target <target>` with `reporter` preloaded (--require),
 * on loopback ports of its own, in a clean environment plus `env` (no package manager's
 * variables: under one, the process also watches its parent), and waits for /health.
 */
export async function startServeProcess(options: { target: "all" | "waiter"; reporter: string; reportFile: string; env: Record<string, string> }): Promise<ServeProcess> {
  const http = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--require", options.reporter, join(REPO, "packages", "cli", "bin", "mailstop.cjs"), "serve", "--target", options.target], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH,
      MAILSTOP_SECRETS_KEY: TEST_SECRETS_KEY,
      MAILSTOP_HOST: "127.0.0.1",
      MAILSTOP_HTTP_PORT: String(http),
      MAILSTOP_SMTP_PORT: String(await freePort()),
      MAILSTOP_CAPTURE_PORT: String(await freePort()),
      MAILSTOP_LOG_FORMAT: "json",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  try {
    await eventually(async () => ((await fetch(`http://127.0.0.1:${http}/health`).catch(() => null))?.ok ? true : null), {
      timeoutMs: 60_000,
      what: `mailstop --target ${options.target} to answer /health (output: ${output.slice(-2000)})`,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${http}`,
    output: () => output,
    async report<T>() {
      rmSync(options.reportFile, { force: true });
      child.kill("SIGUSR2");
      return eventually(async () => (existsSync(options.reportFile) ? (JSON.parse(readFileSync(options.reportFile, "utf8")) as T) : null), { what: `the report in ${options.reportFile}` });
    },
    stop,
  };
}
