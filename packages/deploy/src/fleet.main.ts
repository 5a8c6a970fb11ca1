#!/usr/bin/env node
// `pnpm fleet`: the split fleet on this machine, against the engines of the environment.
// Like a shell, it forwards mailstop's variables from its environment to the services, which
// validate them (@mailstop/config); it only checks that the engines it cannot stand in for exist.
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { loadOrCreateKeyFile } from "@mailstop/core";
import { type FleetListen, findExecutable, startFleet } from "./fleet";
import { fleetService, portOf } from "./fleet-services";
import { startLocalS3 } from "./local-s3";
import { describeExit, lastLines } from "./managed-process";
import { freePort, tcpAnswers } from "./probes";

/** The environment variables the fleet's services read: forwarded as they are. */
const FORWARDED = /^(MAILSTOP_|S3_|DATABASE_URL$|REDIS_URL$)/;

/** An engine the fleet needs, named by its setting. */
const ENGINES = [
  { setting: "DATABASE_URL", name: "PostgreSQL", defaultPort: 5432 },
  { setting: "REDIS_URL", name: "Redis", defaultPort: 6379 },
] as const;

/**
 * What the fleet lacks, as phrases for one line: unset engine settings, engines that do not
 * answer, a missing nginx. Empty when it can start.
 */
export async function missingPrerequisites(env: Record<string, string | undefined>, nginxFound: boolean): Promise<string[]> {
  const missing: string[] = [];
  for (const engine of ENGINES) {
    const value = env[engine.setting];
    if (value === undefined || value === "") {
      missing.push(`${engine.setting} is not set (${engine.name})`);
      continue;
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      missing.push(`${engine.setting} is not a URL`);
      continue;
    }
    const port = Number(url.port || engine.defaultPort);
    if (!(await tcpAnswers(url.hostname, port, 2000))) missing.push(`${engine.name} does not answer at ${url.hostname}:${port} (${engine.setting})`);
  }
  if (!nginxFound) missing.push("nginx is not installed (apt-get install nginx-light)");
  return missing;
}

/** Where `pnpm fleet` is reached, by the settings (and defaults) `pnpm start` listens on. */
const PUBLISHED = [
  { key: "http", port: portOf(fleetService("api"), "http") },
  { key: "smtp", port: portOf(fleetService("smtp-edge"), "smtp") },
  { key: "capture", port: portOf(fleetService("smtp-edge"), "capture") },
] as const;

/**
 * The fleet's edge, receiving SMTP and capture relay ports from MAILSTOP_HTTP_PORT,
 * MAILSTOP_SMTP_PORT and MAILSTOP_CAPTURE_PORT, defaulting as `pnpm start` does, so one set of
 * settings drives either. Throws naming each setting that is not a port.
 */
export function fleetListen(env: Record<string, string | undefined>): Required<FleetListen> {
  const listen: Partial<Record<keyof FleetListen, number>> = {};
  const wrong: string[] = [];
  for (const { key, port } of PUBLISHED) {
    const value = env[port.setting];
    const number = value === undefined || value === "" ? port.port : Number(value);
    if (!Number.isInteger(number) || number < 1 || number > 65_535) wrong.push(`${port.setting}=${value} is not a port (1 to 65535)`);
    listen[key] = number;
  }
  if (wrong.length > 0) throw new Error(wrong.join("; "));
  return listen as Required<FleetListen>;
}

/** The published ports something already answers on, as phrases naming their settings. */
export async function portsInUse(listen: Required<FleetListen>): Promise<string[]> {
  const taken = await Promise.all(PUBLISHED.map(async ({ key, port }) => ((await tcpAnswers("127.0.0.1", listen[key], 1000)) ? `port ${listen[key]} (${port.setting}) is in use` : null)));
  return taken.filter((phrase): phrase is string => phrase !== null);
}

async function main(): Promise<void> {
  const echo = process.argv.includes("--logs");
  const given = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => FORWARDED.test(e[0]) && e[1] !== undefined && e[1] !== ""));
  let listen: Required<FleetListen>;
  try {
    listen = fleetListen(given);
  } catch (error) {
    process.stderr.write(`fleet: cannot start: ${(error as Error).message}.\n`);
    process.exit(1);
  }
  const missing = [...(await missingPrerequisites(given, findExecutable("nginx") !== null)), ...(await portsInUse(listen))];
  if (missing.length > 0) {
    process.stderr.write(`fleet: cannot start: ${missing.join("; ")}.\n`);
    process.exit(1);
  }

  const env = { ...given };
  const s3 =
    env.S3_ENDPOINT === undefined
      ? await startLocalS3({ port: await freePort(), directory: resolve(env.MAILSTOP_DATA_DIR ?? ".mailstop", "fleet-s3"), bucket: env.S3_BUCKET ?? "mailstop" })
      : null;
  if (s3 !== null) Object.assign(env, s3.env);
  // The split targets never print credentials (that is the monolith's first start): without a
  // token there would be no way to create a project.
  const generatedToken = env.MAILSTOP_ADMIN_TOKEN === undefined;
  env.MAILSTOP_ADMIN_TOKEN ??= randomBytes(24).toString("hex");
  // Webhook secrets sealed in one run must open in the next, against the same database: the
  // key is kept under the data directory, as the monolith keeps its own.
  env.MAILSTOP_SECRETS_KEY ??= loadOrCreateKeyFile(resolve(env.MAILSTOP_DATA_DIR ?? ".mailstop"), "fleet-secrets.key").toString("hex");

  let fleet;
  try {
    fleet = await startFleet({
      env,
      listen,
      ...(echo ? { onOutput: (name: string, text: string) => process.stdout.write(text.replace(/^(?=.)/gm, `[${name}] `)) } : {}),
    });
  } catch (error) {
    await s3?.stop();
    process.stderr.write(`fleet: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }

  const lines = [
    `mailstop fleet: ${fleet.url}`,
    `  SMTP receiving edge 127.0.0.1:${fleet.smtp.receiving}, capture relay 127.0.0.1:${fleet.smtp.capture}`,
    `  processes: ${fleet.processes.map((p) => `${p.name} (pid ${p.pid})`).join(", ")}`,
    ...(s3 === null ? [] : [`  object store: s3rver at ${s3.endpoint} (S3_ENDPOINT is not set)`]),
    ...(generatedToken ? [`  admin token (generated for this run): ${env.MAILSTOP_ADMIN_TOKEN}`] : []),
    `  credentials: MAILSTOP_PUBLIC_URL=${fleet.url} MAILSTOP_ADMIN_TOKEN=<token> pnpm --silent mailstop admin bootstrap --json`,
    "  Ctrl-C stops the fleet.",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);

  let exiting = false;
  const shutdown = async (code: number) => {
    if (exiting) return;
    exiting = true;
    await fleet.stop();
    await s3?.stop();
    process.exit(code);
  };
  process.once("SIGINT", () => void shutdown(0));
  process.once("SIGTERM", () => void shutdown(0));
  void fleet.failed.then(({ process: name, exit }) => {
    if (exiting) return;
    process.stderr.write(`fleet: ${name} ${describeExit(exit)}; stopping the fleet.\n${lastLines(fleet.logs(name))}\n`);
    void shutdown(1);
  });
}

if (require.main === module) void main();
