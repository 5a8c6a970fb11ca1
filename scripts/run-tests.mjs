// Runs the test projects this machine can run, in every world it can:
// - `unit` and `embedded` (the monolith on its stand-ins) need nothing but Node.js;
// - `integration` (the monolith on PostgreSQL, Redis and an S3 server) needs PostgreSQL and
//   Redis, or a Docker engine for testcontainers;
// - `fleet` (the four services as processes behind nginx) needs the same engines and nginx; it
//   runs as a jest run of its own, after the others, because its global setup starts the fleet.
// A world this machine cannot run is skipped, saying so and why, except under CI, where a
// missing engine or nginx is a failure: CI must run every world.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createConnection } from "node:net";
import { delimiter, join } from "node:path";

function listens(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    const settle = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000);
    socket.once("connect", () => settle(true));
    socket.once("error", () => settle(false));
    socket.once("timeout", () => settle(false));
  });
}

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
 * Runs jest on `projects`. PGlite needs --experimental-vm-modules inside jest's module sandbox.
 * Two workers, not jest's one-per-spare-core (one here, which means in band): the tests mostly
 * wait on servers, and a worker is recycled when its heap grows (jest.config.js), where one
 * process running every file keeps each file's PGlite and s3rver memory to the end. --forceExit:
 * the last word goes to the run's result, not to a library's timer left behind in the runner.
 */
function jest(projects, extra) {
  const args = [
    "--experimental-vm-modules",
    "--disable-warning=ExperimentalWarning",
    "node_modules/jest/bin/jest.js",
    "--maxWorkers=2",
    "--forceExit",
    ...extra,
    "--selectProjects",
    ...projects,
  ];
  return spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1;
}

const extra = process.argv.slice(2);
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

const engines = await missingEngines();
const projects = unavailable("real-engine run (project integration)", engines) ? ["unit", "embedded"] : ["unit", "integration", "embedded"];
let status = jest(projects, extra);
if (status === 0 && !unavailable("split-fleet run (project fleet)", [...engines, ...nginxMissing()])) status = jest(["fleet"], extra);
if (skipped.length > 0) console.log(`tests: reminder, not run on this machine: ${skipped.join(" | ")}.`);
process.exit(status);
