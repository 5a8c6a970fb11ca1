import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@mailstop/testkit";
import { buildBundle, startServeProcess } from "./serve-process.fixture";

// What wakes an idle `pnpm start` (docs/performance.md "What wakes up while idle"): once its
// start-up is over, the monolith on its embedded stand-ins keeps no timer armed for less than
// IDLE_WAKE_FLOOR_MS, but Node's own. Its webhook relay sleeps until a delivery is due or it
// is kicked, the job worker until a job is due or enqueued, the reconciler until an open
// transaction turns stale or a grace period (60 s) has passed. (Under a package manager the parent watch adds a look
// at the parent pid each PARENT_CHECK_MS, with no I/O; this process has none.)

const REPORTER = join(__dirname, "..", "test", "report-armed-timers.cjs");
/** The shortest timer of its own an idle monolith keeps, as docs/performance.md states it. */
const IDLE_WAKE_FLOOR_MS = 60_000;

interface ArmedTimer {
  ms: number;
  repeats: boolean;
  where: string[];
}

/**
 * Too short for an idle process, except two that are not mailstop's: PostgreSQL's own timeout
 * inside PGlite (after a query its backend arms a one-shot ~10 s timer, the idle flush of its
 * statistics, through setitimer, which fires once and is not armed again until the next
 * query), and Node's HTTP server's connection check (every 30 s, node:_http_server).
 */
const notOurs = (timer: ArmedTimer) => (timer.where.some((frame) => frame.includes("__setitimer_js")) && !timer.repeats) || timer.where.some((frame) => frame.includes("node:_http_server"));
const tooShort = (timer: ArmedTimer) => timer.ms < IDLE_WAKE_FLOOR_MS && !notOurs(timer);

let dir: string;
beforeAll(() => {
  buildBundle();
  dir = mkdtempSync(join(tmpdir(), "mailstop-idle-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`an idle monolith on the embedded stand-ins arms no timer shorter than ${IDLE_WAKE_FLOOR_MS / 1000} s once started`, async () => {
  const reportFile = join(dir, "timers.json");
  const server = await startServeProcess({ target: "all", reporter: REPORTER, reportFile, env: { MAILSTOP_DATA_DIR: join(dir, "data"), ARMED_TIMERS_FILE: reportFile } });
  try {
    let last: ArmedTimer[] = [];
    // Start-up's own timers (the first relay and job runs, the /health connection's keep-alive) end by themselves.
    await eventually(
      async () => {
        last = await server.report<ArmedTimer[]>();
        return last.some(tooShort) ? null : true;
      },
      { timeoutMs: 45_000, what: `only timers of ${IDLE_WAKE_FLOOR_MS} ms or more armed` },
    ).catch(() => {
      throw new Error(`timers shorter than ${IDLE_WAKE_FLOOR_MS} ms stay armed in an idle monolith: ${JSON.stringify(last.filter(tooShort), null, 2)}`);
    });
    // It does have its periodic work armed (the probe sees timers at all).
    expect(last.length).toBeGreaterThan(0);
  } finally {
    await server.stop();
  }
});
