/**
 * pnpm bench [--quick] [--only=laptop,ingest,connect,arrival-wait,held-waits,held-streams,reads,limits-cost,metrics-cost,checks-cost]
 *            [--targets=mailstop,mailstop-dir,mailstop-embedded,mailstop-fleet,ceiling,floor,maildev,postfix] [--profile] [--keep-database]
 *
 * Starts mailstop (monolithic target on PostgreSQL, Redis and an s3rver; the same on the
 * directory store; on its embedded stand-ins as `pnpm start` runs it; the split fleet) and the comparison
 * servers (bare smtp-server discarding: the ceiling; the same with fsync: the durable floor;
 * MailDev: the peer; Postfix delivering to a Maildir, a real MTA, where it is installed and the
 * bench runs as root), runs every scenario against each in one run, prints one table and writes
 * it to bench/results/ as JSON and Markdown. `--quick` runs each scenario briefly and checks
 * only that it runs (CI). `--profile` writes a V8 CPU profile of the mailstop process (and of
 * the embedded column's, under profiles/embedded).
 *
 * This file only wires: the flags are args.ts, the scenario table scenarios/index.ts, the
 * servers targets/lineup.ts, the run runner.ts, the report report.ts and results.ts.
 */
import os from "node:os";
import { parseArgs } from "./args";
import { log } from "./lib/log";
import { sleep } from "./lib/stats";
import { type Row, renderText } from "./report";
import { reportOf, resultDirs, writeReport } from "./results";
import { runScenarios } from "./runner";
import { SCENARIOS } from "./scenarios/index";
import { PLANS } from "./scenarios/plan";
import { startLineup } from "./targets/lineup";

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const mode = args.quick ? "quick" : "full";
  const plan = PLANS[mode];
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  const { logDir, profileDir } = await resultDirs(args.profile);

  log(`${mode} run; starting mailstop (PostgreSQL, Redis, s3rver; the directory store; embedded; the split fleet), the ceiling, the durable floor and MailDev (logs in ${logDir})`);
  const targets = await startLineup({ logDir, profileDir, keepDatabase: args.keepDatabase, targets: args.targets });
  const { notes, errors } = targets;
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  try {
    await runScenarios(SCENARIOS, args.only, { plan, targets, logDir, rows, details }, errors);
  } finally {
    log("stopping servers, dropping the bench database and Redis keys");
    await targets.stopAll();
  }

  await sleep(0);
  const report = reportOf({ mode, startedAt, loadBefore, notes, rows, details, errors });
  process.stdout.write(`\n${renderText(report)}\n\n`);
  await writeReport(report, args.narrowed);
  if (errors.length > 0) {
    for (const error of errors) process.stderr.write(`${error}\n`);
    process.exitCode = 1;
  } else if (mode === "quick") {
    log("quick run: every scenario ran (figures are not checked)");
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
