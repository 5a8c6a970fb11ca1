// The embedded monolith's start on the Node.js running this script (CI runs it on Node 22, the
// oldest line mailstop supports; the test suite runs on 24): `mailstop serve --target all` on a
// fresh data directory and free ports, /health answering 200, then SIGTERM and a clean exit.
// Exits non-zero, with mailstop's output, when any of that fails within its deadline.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "bin", "mailstop.cjs");
const START_DEADLINE_MS = 90_000;
const STOP_DEADLINE_MS = 30_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), "mailstop-start-check-"));
const [http, smtp, capture] = [await freePort(), await freePort(), await freePort()];
const started = Date.now();
// The embedded stand-ins whatever engines the caller has.
const { DATABASE_URL: _db, REDIS_URL: _redis, S3_ENDPOINT: _s3, ...env } = process.env;
const child = spawn(process.execPath, [BIN, "serve", "--target", "all"], {
  env: { ...env, MAILSTOP_DATA_DIR: dataDir, MAILSTOP_HTTP_PORT: String(http), MAILSTOP_SMTP_PORT: String(smtp), MAILSTOP_CAPTURE_PORT: String(capture) },
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
child.stdout.on("data", (chunk) => (output += chunk));
child.stderr.on("data", (chunk) => (output += chunk));
const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
let exit = null;
exited.then((result) => (exit = result));

function fail(what) {
  child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
  process.stderr.write(`start-check (Node.js ${process.version}): ${what}\n--- mailstop's output ---\n${output.slice(-4000)}\n`);
  process.exit(1);
}

async function healthy() {
  const response = await fetch(`http://127.0.0.1:${http}/health`).catch(() => null);
  return response?.status === 200;
}

while (!(await healthy())) {
  if (exit !== null) fail(`mailstop exited (${exit.code ?? exit.signal}) before answering /health`);
  if (Date.now() - started > START_DEADLINE_MS) fail(`no 200 from /health within ${START_DEADLINE_MS / 1000} s`);
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const healthyAfterMs = Date.now() - started;
const startedLine = output.split("\n").find((line) => line.includes('"msg":"mailstop started"'));
const code = startedLine === undefined ? "unknown" : JSON.parse(startedLine).code;

child.kill("SIGTERM");
const stop = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(null), STOP_DEADLINE_MS).unref())]);
if (stop === null) fail(`still running ${STOP_DEADLINE_MS / 1000} s after SIGTERM`);
if (stop.code !== 0) fail(`exited ${stop.code ?? stop.signal} after SIGTERM, not 0`);
rmSync(dataDir, { recursive: true, force: true });
console.log(`start-check: Node.js ${process.version}: the embedded monolith (${code} code) answered /health after ${healthyAfterMs} ms and stopped cleanly on SIGTERM`);
