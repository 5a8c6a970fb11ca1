import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SENDER, message } from "../lib/mail";
import { type Child, cpuSeconds, freePort, rssOf, startChild, waitForHttp } from "../lib/proc";
import { openPool } from "../lib/smtp-client";
import { median, sleep } from "../lib/stats";
import type { Scenario } from "./scenario";

const REPO = join(__dirname, "..", "..", "..");
const API_KEY = "is_test_bench_laptop_0123456789abcdef";
/** Senders of the ingest between the idle measurements. */
const CONCURRENCY = 50;

export interface LaptopResult {
  /** `pnpm start` spawned → `/health` answering, on a fresh data directory. */
  startSeconds: number;
  /** The same on the data directory of that first start (stopped), as every later start. */
  restartSeconds: number;
  /** CPU the server used, in percent of one core, over the first `idleS` seconds after the fresh start answered /health (start-up's tail). */
  startTailCpuPercent: number;
  /** CPU the idle server used, in percent of one core, over the `cpuS` seconds after those: idle, as the target means it. */
  idleCpuPercent: number;
  /** RSS idle, `idleS` seconds after the fresh start answered /health. */
  idleRssMb: number;
  /** RSS idle, `idleS` seconds after the restart answered /health. */
  restartIdleRssMb: number;
  /** Messages ingested by the restarted server, and its RSS after them and `idleS` seconds idle. */
  ingested: number;
  ingestPerSecond: number;
  afterIngestRssMb: number;
  /** `mailstop --help`, wall time, median of the runs. */
  helpMs: number;
  helpRuns: number[];
}

/**
 * What a user meets first: `pnpm start` on the embedded stand-ins as the README runs it, in a
 * fresh data directory, then again on that directory (every start after the first): start-up to
 * `/health`, CPU and memory while nothing happens, memory after ingesting `messages` messages and
 * idling again, and `mailstop --help`. Engine settings are blanked (an empty value counts as unset).
 */
export async function laptop(logDir: string, plan: { idleS: number; cpuS: number; helpRuns: number; messages: number }): Promise<LaptopResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "mailstop-bench-laptop-"));
  const [http, smtp, capture] = [await freePort(), await freePort(), await freePort()];
  /** `pnpm start`, its seconds to /health and mailstop's pid (the start script execs node: pnpm's one child). */
  const start = async (name: string): Promise<{ child: Child; seconds: number; pid: number }> => {
    const started = performance.now();
    const child = startChild(name, "pnpm", ["start"], {
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
        MAILSTOP_BOOTSTRAP_API_KEY: API_KEY,
      },
    });
    try {
      await waitForHttp(child, `http://127.0.0.1:${http}/health`, 120_000);
    } catch (error) {
      await child.stop(30_000);
      throw error;
    }
    const seconds = (performance.now() - started) / 1000;
    const pid = Number((await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")).trim().split(" ")[0]);
    return { child, seconds, pid };
  };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${http}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`laptop: ${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  try {
    const fresh = await start("laptop");
    let startTailCpuPercent: number;
    let idleCpuPercent: number;
    let idleRssMb: number;
    try {
      const atHealth = await cpuSeconds(fresh.pid);
      await sleep(plan.idleS * 1000);
      const afterTail = await cpuSeconds(fresh.pid);
      startTailCpuPercent = (afterTail - atHealth) * (100 / plan.idleS);
      idleRssMb = rssOf(fresh.pid) / 1024 / 1024;
      await sleep(plan.cpuS * 1000);
      idleCpuPercent = ((await cpuSeconds(fresh.pid)) - afterTail) * (100 / plan.cpuS);
    } finally {
      await fresh.child.stop(30_000);
    }

    const again = await start("laptop-restart");
    try {
      await sleep(plan.idleS * 1000);
      const restartIdleRssMb = rssOf(again.pid) / 1024 / 1024;

      const inbox = await api<{ id: string; address: string }>("POST", "/v1/inboxes", { tag: "laptop" });
      const pool = await openPool(smtp, CONCURRENCY);
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        pool.map(async (client) => {
          while (next < plan.messages) {
            const n = ++next;
            await client.send(SENDER, inbox.address, message("2kb", inbox.address, `laptop #${n}`));
          }
        }),
      );
      for (const client of pool) client.close();
      const deadline = performance.now() + 300_000;
      while ((await api<{ message_count: number }>("GET", `/v1/inboxes/${inbox.id}`)).message_count < plan.messages) {
        if (performance.now() > deadline) throw new Error(`laptop: ${plan.messages} messages not all visible within 300 s of the last 250`);
        await sleep(100);
      }
      const ingestPerSecond = (plan.messages * 1000) / (performance.now() - t0);
      await sleep(plan.idleS * 1000);
      const afterIngestRssMb = rssOf(again.pid) / 1024 / 1024;

      const helpRuns: number[] = [];
      for (let i = 0; i < plan.helpRuns; i++) {
        const t1 = performance.now();
        execFileSync(process.execPath, [join(REPO, "packages/cli/bin/mailstop.cjs"), "--help"], { stdio: "ignore" });
        helpRuns.push(performance.now() - t1);
      }
      return {
        startSeconds: fresh.seconds,
        restartSeconds: again.seconds,
        startTailCpuPercent,
        idleCpuPercent,
        idleRssMb,
        restartIdleRssMb,
        ingested: plan.messages,
        ingestPerSecond,
        afterIngestRssMb,
        helpMs: median(helpRuns),
        helpRuns,
      };
    } finally {
      await again.child.stop(30_000);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The laptop rows: start-up, idle CPU and memory, memory after an ingest, and `--help`, against their targets (issue 34's). */
export const laptopScenario: Scenario = {
  name: "laptop",
  async run({ plan, logDir, rows, details }) {
    const result = await laptop(logDir, plan.laptop);
    details.laptop = result;
    const idle = `${plan.laptop.idleS} s`;
    rows.push(
      { scenario: "`pnpm start` (embedded, fresh data) to /health", unit: "s", values: { mailstop: result.startSeconds }, target: { text: "≤ 2", pass: result.startSeconds <= 2 } },
      { scenario: "`pnpm start` (embedded, existing data) to /health", unit: "s", values: { mailstop: result.restartSeconds }, target: { text: "≤ 1", pass: result.restartSeconds <= 1 } },
      {
        scenario: "  idle: CPU",
        unit: "% of a core",
        values: { mailstop: result.idleCpuPercent },
        note: `over ${plan.laptop.cpuS} s from ${idle} after the fresh start (${result.startTailCpuPercent.toFixed(2)} % over the ${idle} before: start-up's tail)`,
        target: { text: "≤ 0.2", pass: result.idleCpuPercent <= 0.2 },
      },
      {
        scenario: `  idle: RSS ${idle} after start`,
        unit: "MB",
        values: { mailstop: result.idleRssMb },
        note: `fresh data; ${result.restartIdleRssMb.toFixed(0)} MB on existing data`,
        target: { text: "≤ 150", pass: Math.max(result.idleRssMb, result.restartIdleRssMb) <= 150 },
      },
      {
        scenario: `  idle: RSS after ingesting ${result.ingested.toLocaleString("en-US")} messages`,
        unit: "MB",
        values: { mailstop: result.afterIngestRssMb },
        note: `2 KB at c=${CONCURRENCY}, ${result.ingestPerSecond.toFixed(0)} msg/s to visible, then ${idle} idle`,
        target: { text: "≤ 250", pass: result.afterIngestRssMb <= 250 },
      },
      { scenario: "`mailstop --help`", unit: "ms", values: { mailstop: result.helpMs }, note: `runs ${result.helpRuns.map((ms) => ms.toFixed(0)).join(", ")}`, target: { text: "≤ 1,000", pass: result.helpMs <= 1000 } },
    );
  },
};
