import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, freePort, rssOf, startChild, waitForHttp } from "../lib/proc";
import { median, sleep } from "../lib/stats";
import type { Scenario } from "./scenario";

const REPO = join(__dirname, "..", "..", "..");

export interface LaptopResult {
  /** `pnpm start` spawned → `/health` answering. */
  startSeconds: number;
  /** CPU the idle server used, in percent of one core. */
  idleCpuPercent: number;
  idleRssMb: number;
  /** `mailstop --help`, wall time, median of the runs. */
  helpMs: number;
  helpRuns: number[];
}

/**
 * What a user meets first: `pnpm start` on the embedded stand-ins in a fresh data
 * directory as the README runs it, its start-up to `/health`, its CPU and memory while nothing
 * happens, and `mailstop --help`. Engine settings are blanked (an empty value counts as unset).
 */
export async function laptop(logDir: string, plan: { idleS: number; helpRuns: number }): Promise<LaptopResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "mailstop-bench-laptop-"));
  const [http, smtp, capture] = [await freePort(), await freePort(), await freePort()];
  const started = performance.now();
  const child = startChild("laptop", "pnpm", ["start"], {
    cwd: REPO,
    logDir,
    env: {
      DATABASE_URL: "",
      REDIS_URL: "",
      S3_ENDPOINT: "",
      MAILSTOP_DATA_DIR: dataDir,
      MAILSTOP_HTTP_PORT: String(http),
      MAILSTOP_SMTP_PORT: String(smtp),
      MAILSTOP_CAPTURE_PORT: String(capture),
    },
  });
  try {
    await waitForHttp(child, `http://127.0.0.1:${http}/health`, 120_000);
    const startSeconds = (performance.now() - started) / 1000;
    // The start script execs node: pnpm's one child is mailstop.
    const pid = Number((await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")).trim().split(" ")[0]);
    await sleep(2000);
    const before = await cpuSeconds(pid);
    await sleep(plan.idleS * 1000);
    const idleCpuPercent = ((await cpuSeconds(pid)) - before) * (100 / plan.idleS);
    const idleRssMb = rssOf(pid) / 1024 / 1024;
    const helpRuns: number[] = [];
    for (let i = 0; i < plan.helpRuns; i++) {
      const t0 = performance.now();
      execFileSync(process.execPath, [join(REPO, "packages/cli/bin/mailstop.cjs"), "--help"], { stdio: "ignore" });
      helpRuns.push(performance.now() - t0);
    }
    return { startSeconds, idleCpuPercent, idleRssMb, helpMs: median(helpRuns), helpRuns };
  } finally {
    await child.stop(30_000);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The laptop rows: start-up, idle CPU and `--help`, against their targets. */
export const laptopScenario: Scenario = {
  name: "laptop",
  async run({ plan, logDir, rows, details }) {
    const result = await laptop(logDir, plan.laptop);
    details.laptop = result;
    rows.push(
      { scenario: "`pnpm start` (embedded, fresh data) to /health", unit: "s", values: { mailstop: result.startSeconds }, target: { text: "≤ 5", pass: result.startSeconds <= 5 } },
      {
        scenario: "  idle: CPU",
        unit: "% of a core",
        values: { mailstop: result.idleCpuPercent },
        note: `RSS ${result.idleRssMb.toFixed(0)} MB, over ${plan.laptop.idleS} s`,
        target: { text: "< 1", pass: result.idleCpuPercent < 1 },
      },
      { scenario: "`mailstop --help`", unit: "ms", values: { mailstop: result.helpMs }, note: `runs ${result.helpRuns.map((ms) => ms.toFixed(0)).join(", ")}`, target: { text: "≤ 1,000", pass: result.helpMs <= 1000 } },
    );
  },
};
