import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { DrillCase, Row } from "./harness/drill";
import { DrillContext, type Prepared, SkipCase } from "./harness/drill";
import type { Engines } from "./harness/engines";
import { startTarget, type Target } from "./harness/target";
import { say, within } from "./harness/time";

export const RESULTS = join(__dirname, "..", "results");

/** A row failed: an assertion, a lost message, or a duplicate SMTP's retry does not explain. */
export const failed = (row: Row) =>
  row.skipped === undefined && row.failures.length > 0 || (row.tally?.lost ?? 0) > 0 || (row.tally ? row.tally.duplicated - row.tally.duplicatedAfterRetry : 0) > 0;

/**
 * Brings back whatever a previous case left broken (it failed half-way): each case starts
 * on healthy engines.
 */
async function restoreEngines(engines: Engines): Promise<void> {
  engines.s3Proxy.calm();
  if (!engines.s3.running) await engines.s3.start();
  else engines.s3.thaw();
  if (!(await engines.redis.command("PING").then(() => true, () => false))) await engines.redis.start();
  if (!(await engines.postgres.query("select 1").then(() => true, () => false))) await engines.postgres.start();
}

/**
 * Runs one case on a target started for it (so no case inherits another's damage), within
 * its deadline. Whatever it throws becomes a failure of its row; the run goes on.
 */
export async function runCase(drillCase: DrillCase, engines: Engines, quick: boolean): Promise<Row> {
  const row: Row = { drill: drillCase.drill, target: drillCase.target, notes: [], failures: [], durationMs: 0 };
  const started = Date.now();
  say(`${drillCase.drill} on ${drillCase.target}: starting`);
  let target: Target | undefined;
  let ctx: DrillContext | undefined;
  let prepared: Prepared | undefined;
  try {
    await restoreEngines(engines);
    prepared = await drillCase.prepare?.(engines);
    target = await startTarget(drillCase.target, engines, { ...drillCase.options, ...(drillCase.graceS === undefined ? {} : { graceS: drillCase.graceS }), ...(prepared?.dataDir === undefined ? {} : { dataDir: prepared.dataDir }) });
    ctx = new DrillContext(engines, target, row, quick);
    await within(`${drillCase.drill} on ${drillCase.target}`, drillCase.run(ctx), drillCase.timeoutMs ?? 6 * 60_000);
  } catch (error) {
    if (error instanceof SkipCase) {
      row.skipped = error.message;
      say(`${drillCase.drill} on ${drillCase.target}: skipped (${error.message})`);
    } else {
      row.failures.push(`drill error: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      say(`${drillCase.drill} on ${drillCase.target}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  } finally {
    await ctx?.abortLoads();
    await target?.stop();
    await prepared?.release().catch((error: Error) => row.failures.push(`clean-up: ${error.message}`));
  }
  row.durationMs = Date.now() - started;
  if (failed(row) && target) keepLogs(drillCase, target, engines);
  const t = row.tally;
  say(`${drillCase.drill} on ${drillCase.target}: ${row.skipped !== undefined ? "skipped" : failed(row) ? "FAILED" : "ok"} in ${(row.durationMs / 1000).toFixed(0)} s` + (t ? ` (sent ${t.sent}, 250 ${t.accepted}, lost ${t.lost}, duplicated ${t.duplicated})` : ""));
  return row;
}

/** A failed case's logs (its processes', the engines') are kept under results/logs for a look. */
function keepLogs(drillCase: DrillCase, target: Target, engines: Engines): void {
  const directory = join(RESULTS, "logs", `${drillCase.id}-${drillCase.drill.replace(/[^a-z0-9]+/gi, "-")}-${drillCase.target}`.toLowerCase());
  mkdirSync(directory, { recursive: true });
  cpSync(target.logDir, directory, { recursive: true });
  for (const file of ["postgres.log", "redis.log", "s3rver.log"]) cpSync(join(engines.logDir, file), join(directory, file), { force: true });
  say(`logs kept in ${directory}`);
}
