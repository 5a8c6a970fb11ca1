import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The parts of Playwright's JSON report the tests read. */
export interface PlaywrightReport {
  suites: Array<{ specs: Array<{ title: string; tests: Array<{ results: Array<PlaywrightResult> }> }> }>;
  stats: { expected: number; unexpected: number; skipped: number; flaky: number };
}

export interface PlaywrightResult {
  status: "passed" | "failed" | "timedOut" | "skipped" | "interrupted";
  duration: number;
  errors: Array<{ message?: string }>;
  attachments: Array<{ name: string; contentType: string; body?: string }>;
  annotations?: Array<{ type: string; description?: string }>;
}

export interface PlaywrightRun {
  code: number | null;
  /** What Playwright and the app's web server printed, for a failure's message. */
  output: string;
  report: PlaywrightReport | null;
  /** The one result of each test, by title. */
  results: Map<string, PlaywrightResult>;
}

/**
 * Runs `playwright test` in `dir` (its playwright.config.ts) as a user runs it, with the JSON
 * report written to a temporary file; `env` is added to this process's environment without its
 * MAILSTOP_* and JEST_* variables. Never rejects on a failing run: the caller reads the code and results.
 */
export async function runPlaywright(dir: string, env: Record<string, string>, timeoutMs = 150_000): Promise<PlaywrightRun> {
  const scratch = mkdtempSync(join(tmpdir(), "mailstop-playwright-"));
  const reportFile = join(scratch, "report.json");
  const cli = createRequire(join(dir, "package.json")).resolve("@playwright/test/cli");
  // Playwright refuses to run inside a jest worker (it reads JEST_WORKER_ID): this is a user's shell.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("MAILSTOP_") && !name.startsWith("JEST_")));
  const child = spawn(process.execPath, [cli, "test", "--output", join(scratch, "results")], {
    cwd: dir,
    env: { ...clean, CI: "1", PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  clearTimeout(killer);
  try {
    const report = readReport(reportFile);
    const results = new Map<string, PlaywrightResult>();
    for (const suite of report?.suites ?? []) for (const spec of suite.specs) results.set(spec.title, spec.tests[0]!.results[0]!);
    return { code, output, report, results };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function readReport(file: string): PlaywrightReport | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as PlaywrightReport;
  } catch {
    return null;
  }
}
