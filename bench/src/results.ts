import { execSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { log } from "./lib/log";
import { type Report, type Row, renderMarkdown } from "./report";
import type { Mode } from "./scenarios/plan";

/** bench/results: the report files, the servers' logs and, with --profile, the profiles. */
export const RESULTS_DIR = join(__dirname, "..", "results");

/** Creates results/logs (and results/profiles/embedded with --profile) and names them. */
export async function resultDirs(profile: boolean): Promise<{ logDir: string; profileDir: string | undefined }> {
  const logDir = join(RESULTS_DIR, "logs");
  await mkdir(logDir, { recursive: true });
  const profileDir = profile ? join(RESULTS_DIR, "profiles") : undefined;
  if (profileDir) await mkdir(join(profileDir, "embedded"), { recursive: true });
  return { logDir, profileDir };
}

function commit(): string {
  try {
    return execSync("git rev-parse --short HEAD", { cwd: join(__dirname, ".."), stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
  } catch {
    return "unknown"; // not a git checkout
  }
}

/** What a run found, made into the report (finished now), with the machine it ran on. */
export function reportOf(run: { mode: Mode; startedAt: Date; loadBefore: number[]; notes: string[]; rows: Row[]; details: Record<string, unknown>; errors: string[] }): Report {
  const finishedAt = new Date();
  return {
    mode: run.mode,
    started_at: run.startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_s: (finishedAt.getTime() - run.startedAt.getTime()) / 1000,
    machine: {
      cpus: os.cpus()[0]?.model ?? "unknown",
      cores: os.cpus().length,
      memory_gb: os.totalmem() / 1024 ** 3,
      node: process.versions.node,
      os: `${os.type()} ${os.release()}`,
      load_before: run.loadBefore,
      load_after: os.loadavg(),
    },
    commit: commit(),
    notes: run.notes,
    rows: run.rows,
    details: { ...run.details, errors: run.errors },
  };
}

/**
 * Writes the report as JSON and Markdown: results/quick.* for --quick, results/partial.* for a
 * narrowed run (--only, --targets), which never replaces the full run's results/latest.*.
 */
export async function writeReport(report: Report, narrowed: boolean): Promise<void> {
  const stem = report.mode === "quick" ? "quick" : narrowed ? "partial" : "latest";
  await writeFile(join(RESULTS_DIR, `${stem}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(RESULTS_DIR, `${stem}.md`), renderMarkdown(report));
  log(`wrote ${join(RESULTS_DIR, `${stem}.json`)} and ${stem}.md in ${report.duration_s.toFixed(0)} s`);
}
