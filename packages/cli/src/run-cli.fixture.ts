import { execFile } from "node:child_process";
import { resolve } from "node:path";

/** The `mailstop` binary of this package. */
export const BIN = resolve(__dirname, "../bin/mailstop.cjs");

/** How a spawned CLI ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of this process without any mailstop variable or engine URL, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("MAILSTOP_") || name === "DATABASE_URL" || name === "REDIS_URL" || name.startsWith("S3_")) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Runs `command args` in a clean environment plus `env`; never rejects, reports the exit code. */
export function runCli(command: string, args: readonly string[], options: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((done) => {
    execFile(command, [...args], { cwd: options.cwd, env: cleanEnv(options.env), timeout: options.timeoutMs ?? 60_000, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : null;
      done({ code, stdout, stderr });
    });
  });
}

/** `mailstop …args` (this package's binary) against `server`'s URL and key, given in the environment only. */
export function runClient(server: { url: string; apiKey: string }, args: readonly string[], timeoutMs?: number): Promise<Run> {
  return runCli(process.execPath, [BIN, ...args], { env: { MAILSTOP_API_URL: server.url, MAILSTOP_API_KEY: server.apiKey }, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}
