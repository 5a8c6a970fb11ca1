// Runs the test projects this machine can run. The unit and `embedded` projects need nothing
// but Node.js; the `integration` project needs PostgreSQL and Redis (or a Docker engine for
// testcontainers). Without them it is skipped, saying so and why, except under CI, where a
// missing engine is a failure: CI must run both worlds.
import { spawnSync } from "node:child_process";
import { createConnection } from "node:net";

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

const extra = process.argv.slice(2);
const missing = await missingEngines();
let projects = ["unit", "integration", "embedded"];
if (missing.length > 0) {
  if (process.env.CI) {
    console.error(`tests: the real-engine run cannot start under CI: ${missing.join("; ")}`);
    process.exit(1);
  }
  console.log(`tests: real-engine run (project integration) SKIPPED: ${missing.join("; ")}; running unit and embedded only.`);
  projects = ["unit", "embedded"];
}
// --experimental-vm-modules: PGlite loads its WebAssembly through a dynamic import, which
// jest's module sandbox permits only with it.
const jest = spawnSync(process.execPath, ["--experimental-vm-modules", "--disable-warning=ExperimentalWarning", "node_modules/jest/bin/jest.js", ...extra, "--selectProjects", ...projects], { stdio: "inherit" });
if (missing.length > 0) console.log(`tests: reminder, the real-engine run was skipped: ${missing.join("; ")}.`);
process.exit(jest.status ?? 1);
