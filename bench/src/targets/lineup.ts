import { join } from "node:path";
import { startTestDns } from "@mailstop/testkit";
import { log } from "../lib/log";
import { type MaildevTarget, startMaildev } from "./maildev";
import { type MailstopTarget, startMailstop } from "./mailstop";
import { type MailstopFleetTarget, startMailstopFleet } from "./mailstop-fleet";
import { startPostfix } from "./postfix";
import { startSink } from "./sink";
import type { Target, TargetName } from "./target";

/** The columns in the order the scenarios visit them; `--targets` picks some. */
export const START_ORDER: readonly TargetName[] = ["ceiling", "floor", "maildev", "postfix", "mailstop-embedded", "mailstop-fleet", "mailstop-dir", "mailstop"];

/** The servers of one run, started, and how to stop them all. */
export interface Lineup {
  byName: Record<TargetName, Target>;
  /** The columns `--targets` asked for that are running, in `START_ORDER`. */
  order: TargetName[];
  mailstop: MailstopTarget;
  maildev: MaildevTarget;
  /** The other mailstop columns, where --targets asked for them. */
  embedded: MailstopTarget | null;
  fleet: MailstopFleetTarget | null;
  /** What the table should be read with (Postfix not run, and why). */
  notes: string[];
  /** A server that should have started and did not (Postfix): the run fails. */
  errors: string[];
  /** Stops every server, those still being started too; the same promise on every call. */
  stopAll(): Promise<unknown>;
}

export interface LineupOptions {
  logDir: string;
  /** With --profile: where the mailstop processes write their CPU profiles. */
  profileDir: string | undefined;
  keepDatabase: boolean;
  /** The columns `--targets` asked for. */
  targets: ReadonlySet<string>;
}

/** The PostgreSQL server of DATABASE_URL without its database name (the bench makes its own). */
export function databaseServer(): string {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  url.pathname = "";
  return url.toString().replace(/\/$/, "");
}

/**
 * Starts every server the run compares, side by side, and stops them all when the bench is
 * interrupted or crashes; throws (after stopping the others) when one of them fails to start.
 */
export async function startLineup(options: LineupOptions): Promise<Lineup> {
  const { logDir, profileDir, targets: asked } = options;
  const engines = { logDir, databaseServer: databaseServer(), redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" };
  // The parser's authentication checks look up each sender's domain: every mailstop process of
  // the run (they inherit this environment) asks a loopback DNS server answering NXDOMAIN,
  // never the machine's resolvers, so the figures do not depend on what those answer, or how fast.
  const dns = await startTestDns();
  process.env.MAILSTOP_DNS_SERVERS = dns.server;
  // mailstop, its directory-store column and MailDev always start (scenarios other than ingest use them).
  const started = await Promise.allSettled([
    startMailstop({ ...engines, cpuProfileDir: profileDir, keepDatabase: options.keepDatabase }),
    startMailstop({ ...engines, objectStore: "directory" }),
    startMaildev(logDir),
    ...(asked.has("ceiling") ? [startSink("ceiling", logDir)] : []),
    ...(asked.has("floor") ? [startSink("floor", logDir)] : []),
    // Profiled too, into a directory of its own (its phases would overwrite the first column's files).
    ...(asked.has("mailstop-embedded") ? [startMailstop({ ...engines, objectStore: "embedded", cpuProfileDir: profileDir && join(profileDir, "embedded") })] : []),
    ...(asked.has("mailstop-fleet") ? [startMailstopFleet(engines)] : []),
  ]);
  const targets: Target[] = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  /** Servers being started, stopped too if the run is interrupted meanwhile (Postfix's master outlives the bench). */
  const starting: (() => Promise<void>)[] = [];
  let stopping: Promise<unknown> | null = null;
  const stopAll = () =>
    (stopping ??= Promise.all([
      ...targets.map((t) => t.stop().catch((error: unknown) => log(`stopping ${t.name}: ${String(error)}`))),
      ...starting.map((stop) => stop().catch((error: unknown) => log(`stopping a server being started: ${String(error)}`))),
    ]).finally(() => dns.stop()));
  // Interrupted or crashed: still stop the servers, drop the database and the Redis keys.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping servers`);
      void stopAll().finally(() => process.exit(130));
    });
  }
  process.once("uncaughtException", (error) => {
    log(`uncaught: ${error.stack ?? String(error)}`);
    void stopAll().finally(() => process.exit(1));
  });
  const failedToStart = started.find((s) => s.status === "rejected");
  if (failedToStart) {
    await stopAll();
    throw (failedToStart as PromiseRejectedResult).reason;
  }
  // Postfix is optional: where it cannot run the table says why; where it should and fails, the run fails.
  const notes: string[] = [];
  const errors: string[] = [];
  const postfix = !asked.has("postfix")
    ? null
    : await startPostfix(logDir, (stop) => starting.push(stop)).catch((error: unknown) => {
        errors.push(`postfix: ${error instanceof Error ? error.stack : String(error)}`);
        return { skipped: `it failed to start: ${error instanceof Error ? error.message : String(error)}` };
      });
  if (postfix !== null && "skipped" in postfix) {
    notes.push(`Postfix not run: ${postfix.skipped}.`);
    log(notes.at(-1)!);
  } else if (postfix !== null) {
    targets.push(postfix);
  }
  const byName = Object.fromEntries(targets.map((t) => [t.name, t])) as Record<TargetName, Target>;
  return {
    byName,
    // --targets narrows the comparison (for profiling one server); mailstop and MailDev still start.
    order: START_ORDER.filter((name) => asked.has(name) && name in byName),
    mailstop: byName.mailstop as MailstopTarget,
    maildev: byName.maildev as MaildevTarget,
    embedded: (byName["mailstop-embedded"] as MailstopTarget | undefined) ?? null,
    fleet: (byName["mailstop-fleet"] as MailstopFleetTarget | undefined) ?? null,
    notes,
    errors,
    stopAll,
  };
}
