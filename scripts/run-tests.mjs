// Runs the test projects this machine can run, in every world it can:
// - `unit` and `embedded` (the monolith on its stand-ins) need nothing but Node.js;
// - `integration` (the monolith on PostgreSQL, Redis and an S3 server) needs PostgreSQL and
//   Redis, or a Docker engine for testcontainers;
// - `fleet` (the four services as processes behind nginx) needs the same engines and nginx; it
//   runs as a jest run of its own, after the others, because its global setup starts the fleet.
// A world this machine cannot run is skipped, saying so and why, except under CI, where a
// missing engine or nginx is a failure: CI must run every world.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { tsImport } from "tsx/esm/api";

// The workspace's own probe (packages/deploy), loaded through tsx: this script runs on plain node.
const { tcpAnswers } = await tsImport("../packages/deploy/src/probes.ts", import.meta.url);
const listens = (url) => tcpAnswers(new URL(url).hostname, Number(new URL(url).port), 2000);

function dockerAnswers() {
  const probe = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { timeout: 5000, encoding: "utf8" });
  return probe.status === 0 && probe.stdout.trim() !== "";
}

async function missingEngines() {
  if (dockerAnswers()) return [];
  const engines = [
    ["PostgreSQL", process.env.DATABASE_URL || "postgres://127.0.0.1:5432", "DATABASE_URL"],
    ["Redis", process.env.REDIS_URL || "redis://127.0.0.1:6379", "REDIS_URL"],
  ];
  const missing = [];
  for (const [name, url, variable] of engines) if (!(await listens(url))) missing.push(`${name} does not answer at ${new URL(url).host} (set ${variable})`);
  return missing;
}

function nginxMissing() {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin"];
  return dirs.some((dir) => dir !== "" && existsSync(join(dir, "nginx"))) ? [] : ["nginx is not installed (Debian: apt-get install nginx-light)"];
}

/**
 * Runs jest on `projects`, recording its result for the summary. PGlite needs
 * --experimental-vm-modules inside jest's module sandbox. Three workers on this 2-core
 * machine, not jest's one-per-spare-core (one here, which means in band): the tests mostly
 * wait on servers they start, so two workers left the cores a quarter idle (the unit,
 * integration and embedded run took 830 s with two, 596 s with three, every test passing);
 * and a worker is recycled when its heap grows (jest.config.js), where one process running
 * every file keeps each file's PGlite and s3rver memory to the end. --forceExit: the last word goes to the
 * run's result, not to a library's timer left behind in the runner. The counts come from jest's
 * own JSON result (--outputFile), not from its console text.
 */
function jest(label, projects, extra) {
  const outputFile = join(tmpdir(), `mailstop-tests-${process.pid}-${runs.length}.json`);
  const args = [
    "--experimental-vm-modules",
    "--disable-warning=ExperimentalWarning",
    "node_modules/jest/bin/jest.js",
    "--maxWorkers=3",
    "--forceExit",
    "--json",
    `--outputFile=${outputFile}`,
    ...extra,
    "--selectProjects",
    ...projects,
  ];
  const started = Date.now();
  const status = spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1;
  let counts = null;
  try {
    const result = JSON.parse(readFileSync(outputFile, "utf8"));
    counts = { passed: result.numPassedTests, failed: result.numFailedTests, skipped: result.numPendingTests + result.numTodoTests, suitesFailed: result.numFailedTestSuites };
    rmSync(outputFile, { force: true });
  } catch {
    // No result file: jest did not get as far as running tests (its own output says why).
  }
  runs.push({ label, status, counts, seconds: Math.round((Date.now() - started) / 1000) });
  return status;
}

const extra = process.argv.slice(2);
const runs = [];
const skipped = [];
/** A world that cannot run here: a failure under CI, a reported skip elsewhere. */
function unavailable(world, reasons) {
  if (reasons.length === 0) return false;
  if (process.env.CI) {
    console.error(`tests: the ${world} run cannot start under CI: ${reasons.join("; ")}`);
    process.exit(1);
  }
  skipped.push(`${world} SKIPPED: ${reasons.join("; ")}`);
  console.log(`tests: ${world} SKIPPED: ${reasons.join("; ")}`);
  return true;
}

/** One summary for every run: each run's outcome and counts, what was skipped and why, the totals. */
function summarise() {
  const describe = ({ passed, failed, skipped: pending, suitesFailed }) =>
    `${passed} passed, ${failed} failed, ${pending} skipped${suitesFailed > 0 ? `, ${suitesFailed} file(s) failed to run or had failures` : ""}`;
  console.log("\ntests: summary");
  for (const run of runs) {
    const outcome = run.status === 0 ? "passed" : "FAILED";
    console.log(`  ${run.label}: ${outcome}${run.counts ? ` (${describe(run.counts)})` : " (no test results: see above)"} in ${run.seconds} s`);
  }
  for (const line of skipped) console.log(`  ${line}`);
  const total = runs.reduce((sum, run) => (run.counts ? { passed: sum.passed + run.counts.passed, failed: sum.failed + run.counts.failed, skipped: sum.skipped + run.counts.skipped, suitesFailed: sum.suitesFailed + run.counts.suitesFailed } : sum), {
    passed: 0,
    failed: 0,
    skipped: 0,
    suitesFailed: 0,
  });
  console.log(`  total: ${describe(total)}; ${runs.every((run) => run.status === 0) ? "every run passed" : "some run FAILED"}`);
}

const engines = await missingEngines();
const noEngines = unavailable("real-engine run (project integration)", engines);
let status = jest(noEngines ? "unit + embedded" : "unit + integration + embedded", noEngines ? ["unit", "embedded"] : ["unit", "integration", "embedded"], extra);
// The fleet runs even after a failure above: a first run's failure must not hide the fleet's outcome.
if (!unavailable("split-fleet run (project fleet)", [...engines, ...nginxMissing()])) status = jest("fleet", ["fleet"], extra) || status;
summarise();
process.exit(status);
