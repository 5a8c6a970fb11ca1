/**
 * pnpm bench [--quick] [--only=laptop,ingest,connect,arrival-wait,held-waits,held-streams,reads,limits-cost,metrics-cost]
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
 */
import { execSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { type Report, type Row, renderMarkdown, renderText } from "./report";
import { type ArrivalWaitResult, arrivalToWait } from "./scenarios/arrival-wait";
import { connectPerMessage } from "./scenarios/connect";
import { heldStreams } from "./scenarios/held-streams";
import { heldWaits } from "./scenarios/held-waits";
import { ingest } from "./scenarios/ingest";
import { laptop } from "./scenarios/laptop";
import { type CostResult, type CostRowSpec, costRows } from "./scenarios/cost";
import { VARIANTS, limitsCost } from "./scenarios/limits-cost";
import { METRICS_VARIANTS, metricsCost } from "./scenarios/metrics-cost";
import { readLoad } from "./scenarios/reads";
import { SENDER, message } from "./lib/mail";
import { openPool } from "./lib/smtp-client";
import { sleep, until } from "./lib/stats";
import { startMaildev } from "./targets/maildev";
import { startPostfix } from "./targets/postfix";
import { type MailstopTarget, startMailstop } from "./targets/mailstop";
import { call } from "./lib/api";
import { withCpuOf } from "./lib/proc";
import { type MailstopFleetTarget, startMailstopFleet } from "./targets/mailstop-fleet";
import { startSink } from "./targets/sink";
import type { Target, TargetName } from "./targets/target";

const SCENARIOS = ["laptop", "ingest", "connect", "arrival-wait", "held-waits", "held-streams", "reads", "limits-cost", "metrics-cost"] as const;
type Scenario = (typeof SCENARIOS)[number];

/** How much of each scenario a run does: the full run stays within a few minutes. */
const PLANS = {
  full: {
    ingestMs: 3000,
    concurrencies: [1, 10, 50],
    connectSends: 200,
    connectMaxMs: 10_000,
    arrival: { lanes: 5, perLane: 100, maxMs: 12_000 },
    // Shorter: above what mailstop absorbs, every second of background is seconds of queue to drain.
    arrivalBackgroundMs: 8000,
    backgroundPerSecond: 500,
    heldWaits: { waits: 10_000, inboxes: 100 },
    heldStreams: { streams: 10_000, inboxes: 100, arrivals: 10 },
    readsS: 5,
    limitsCost: { rate: 500, durationS: 5, warmUpS: 2, rounds: 3 },
    metricsCost: { rate: 500, smtpRate: 50, durationS: 5, warmUpS: 2, rounds: 3 },
    laptop: { idleS: 30, helpRuns: 5 },
  },
  quick: {
    ingestMs: 300,
    concurrencies: [1, 10, 50],
    connectSends: 10,
    connectMaxMs: 2000,
    arrival: { lanes: 2, perLane: 3, maxMs: 5000 },
    arrivalBackgroundMs: 3000,
    backgroundPerSecond: 100,
    heldWaits: { waits: 200, inboxes: 10 },
    heldStreams: { streams: 200, inboxes: 10, arrivals: 2 },
    readsS: 1,
    limitsCost: { rate: 100, durationS: 0.5, warmUpS: 0.5, rounds: 1 },
    metricsCost: { rate: 100, smtpRate: 20, durationS: 0.5, warmUpS: 0.5, rounds: 1 },
    laptop: { idleS: 3, helpRuns: 2 },
  },
} as const;

const ROOT = join(__dirname, "..");
const MB = 1024 * 1024;
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** The table's columns, in order; `--targets` picks some. */
const COLUMNS: readonly TargetName[] = ["ceiling", "floor", "maildev", "postfix", "mailstop-embedded", "mailstop-fleet", "mailstop-dir", "mailstop"];

function parseArgs(argv: string[]) {
  const quick = argv.includes("--quick");
  const profile = argv.includes("--profile");
  const keepDatabase = argv.includes("--keep-database");
  const only = argv.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
  for (const name of only ?? []) if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario ${name}; one of ${SCENARIOS.join(", ")}`);
  const targets = argv.find((a) => a.startsWith("--targets="))?.slice("--targets=".length).split(",");
  return { quick, profile, keepDatabase, only: new Set<string>(only ?? SCENARIOS), targets: new Set<string>(targets ?? COLUMNS) };
}

/** The PostgreSQL server of DATABASE_URL without its database name (the bench makes its own). */
function databaseServer(): string {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  url.pathname = "";
  return url.toString().replace(/\/$/, "");
}

/** Sends `count` 2 KB messages to a new inbox of `target` and returns the id of one in the middle, once all are visible. */
async function filledMessage(target: MailstopTarget | MailstopFleetTarget, count: number): Promise<string> {
  const inbox = await target.createInbox(`reads.${Date.now().toString(36)}`);
  const pool = await openPool(target.smtpPort, 10);
  await Promise.all(pool.map(async (client, lane) => {
    for (let i = 0; i < count / pool.length; i++) await client.send(SENDER, inbox.address, message("2kb", inbox.address, `reads ${lane}-${i}`));
  }));
  for (const client of pool) client.close();
  const listed = () => call<{ data: Array<{ id: string }> }>(target.url, target.apiKey, "GET", `/v1/messages?inbox=${inbox.id}&limit=200`);
  let ids: string[] = [];
  await until(async () => (ids = (await listed()).data.map((each) => each.id)).length >= count, `${count} messages to read on ${target.name}`, 30_000);
  return ids[Math.floor(count / 2)]!;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const mode = args.quick ? "quick" : "full";
  const plan = PLANS[mode];
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  const resultsDir = join(ROOT, "results");
  const logDir = join(resultsDir, "logs");
  await mkdir(logDir, { recursive: true });
  const profileDir = args.profile ? join(resultsDir, "profiles") : undefined;
  if (profileDir) await mkdir(join(profileDir, "embedded"), { recursive: true });

  log(`${mode} run; starting mailstop (PostgreSQL, Redis, s3rver; the directory store; embedded; the split fleet), the ceiling, the durable floor and MailDev (logs in ${logDir})`);
  const engines = { logDir, databaseServer: databaseServer(), redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" };
  // mailstop, its directory-store column and MailDev always start (scenarios other than ingest use them).
  const started = await Promise.allSettled([
    startMailstop({ ...engines, cpuProfileDir: profileDir, keepDatabase: args.keepDatabase }),
    startMailstop({ ...engines, objectStore: "directory" }),
    startMaildev(logDir),
    ...(args.targets.has("ceiling") ? [startSink("ceiling", logDir)] : []),
    ...(args.targets.has("floor") ? [startSink("floor", logDir)] : []),
    // Profiled too, into a directory of its own (its phases would overwrite the first column's files).
    ...(args.targets.has("mailstop-embedded") ? [startMailstop({ ...engines, objectStore: "embedded", cpuProfileDir: profileDir && join(profileDir, "embedded") })] : []),
    ...(args.targets.has("mailstop-fleet") ? [startMailstopFleet(engines)] : []),
  ]);
  const targets: Target[] = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  /** Servers being started, stopped too if the run is interrupted meanwhile (Postfix's master outlives the bench). */
  const starting: (() => Promise<void>)[] = [];
  let stopping: Promise<unknown> | null = null;
  const stopAll = () =>
    (stopping ??= Promise.all([
      ...targets.map((t) => t.stop().catch((error: unknown) => log(`stopping ${t.name}: ${String(error)}`))),
      ...starting.map((stop) => stop().catch((error: unknown) => log(`stopping a server being started: ${String(error)}`))),
    ]));
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
  const postfix = !args.targets.has("postfix")
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
  const mailstop = byName.mailstop as MailstopTarget;
  const maildev = byName.maildev as Awaited<ReturnType<typeof startMaildev>>;
  /** The other mailstop columns, where --targets asked for them. */
  const embedded = (byName["mailstop-embedded"] as MailstopTarget | undefined) ?? null;
  const fleet = (byName["mailstop-fleet"] as MailstopFleetTarget | undefined) ?? null;
  // --targets narrows the comparison (for profiling one server); mailstop and MailDev still start.
  const order = COLUMNS.filter((name) => args.targets.has(name) && name in byName);

  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  const scenario = async (name: Scenario, body: () => Promise<void>) => {
    if (!args.only.has(name)) return;
    const t0 = performance.now();
    log(`${name} …`);
    try {
      await body();
      log(`${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } catch (error) {
      errors.push(`${name}: ${error instanceof Error ? error.stack : String(error)}`);
      log(`${name} FAILED: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  try {
    await scenario("laptop", async () => {
      const result = await laptop(logDir, plan.laptop);
      details.laptop = result;
      rows.push(
        { scenario: "`pnpm start` (embedded, fresh data) to /health", unit: "s", values: { mailstop: result.startSeconds }, target: { text: "≤ 5", pass: result.startSeconds <= 5 } },
        {
          scenario: "  idle: CPU",
          unit: "% of a core",
          values: { mailstop: result.idleCpuPercent },
          note: `RSS ${result.idleRssMb.toFixed(0)} MB, over ${plan.laptop.idleS} s`,
          target: { text: "< 1", pass: result.idleCpuPercent < 1 },
        },
        { scenario: "`mailstop --help`", unit: "ms", values: { mailstop: result.helpMs }, note: `runs ${result.helpRuns.map((ms) => ms.toFixed(0)).join(", ")}`, target: { text: "≤ 1,000", pass: result.helpMs <= 1000 } },
      );
    });
    await scenario("ingest", async () => {
      for (const size of ["2kb", "50kb"] as const) {
        for (const concurrency of plan.concurrencies) {
          const values: Row["values"] = {};
          const accepted: string[] = [];
          let s3rverShare = "";
          for (const name of order) {
            // On s3rver, whose CPU the figure largely is: both processes' CPU over the run (threads included).
            const pids = name === "mailstop" && mailstop.s3Pid !== null ? [mailstop.pid, mailstop.s3Pid] : [];
            const { result, cpuSeconds } = await withCpuOf(pids, () => ingest(byName[name], size, concurrency, plan.ingestMs));
            details[`ingest.${size}.c${concurrency}.${name}`] = { ...result, ...(pids.length > 0 ? { cpu_seconds: { mailstop: cpuSeconds[0], s3rver: cpuSeconds[1] } } : {}) };
            if (pids.length > 0) s3rverShare = `; CPU s at c=${concurrency} on the s3 column: mailstop ${cpuSeconds[0]!.toFixed(1)}, s3rver ${cpuSeconds[1]!.toFixed(1)} (${((100 * cpuSeconds[1]!) / (cpuSeconds[0]! + cpuSeconds[1]!)).toFixed(0)}% of the two)`;
            values[name] = result.visiblePerSecond;
            accepted.push(`${name} ${result.acceptedPerSecond.toFixed(0)}`);
          }
          const row: Row = {
            scenario: `ingest ${size === "2kb" ? "2 KB" : "50 KB"} c=${concurrency}, visible`,
            unit: "msg/s",
            values,
            note: `250s/s: ${accepted.join(", ")}${s3rverShare}`,
          };
          // The real-engine monolith on the directory store against Postfix → Maildir, which also keeps files.
          const dir = values["mailstop-dir"];
          const postfixRate = values.postfix;
          if (concurrency === 50 && dir !== undefined && dir !== null) {
            row.target =
              postfixRate === undefined || postfixRate === null
                ? { text: "directory store (Postfix not run)", pass: false }
                : { text: "directory store ≥ Postfix → Maildir", pass: dir >= postfixRate };
          }
          rows.push(row);
          const laptop = values["mailstop-embedded"];
          if (size === "2kb" && concurrency === 50 && laptop !== undefined && laptop !== null && dir !== undefined && dir !== null) {
            rows.push({
              scenario: "  embedded (`pnpm start`) / real-engine monolith (directory store), 2 KB c=50",
              unit: "ratio",
              values: { "mailstop-embedded": laptop / dir },
              target: { text: "≥ 0.5", pass: laptop / dir >= 0.5 },
            });
          }
        }
      }
    });

    await scenario("connect", async () => {
      const p50: Row["values"] = {};
      const p99s: string[] = [];
      for (const name of order) {
        const result = await connectPerMessage(byName[name], "2kb", plan.connectSends, { startTls: false, maxMs: plan.connectMaxMs });
        details[`connect.plain.${name}`] = result;
        p50[name] = result.p50Ms;
        p99s.push(`${name} p99 ${result.p99Ms.toFixed(1)} (${result.samples})`);
      }
      rows.push({ scenario: "one connection per message, connect → 250 p50", unit: "ms", values: p50, note: p99s.join(", "), target: { text: "≤ 5 ms", pass: p50.mailstop! <= 5 } });
      const tls = await connectPerMessage(mailstop, "2kb", plan.connectSends, { startTls: true, maxMs: plan.connectMaxMs });
      details["connect.starttls.mailstop"] = tls;
      rows.push({
        scenario: "  same, with STARTTLS (nodemailer upgrades when offered)",
        unit: "ms",
        values: { mailstop: tls.p50Ms },
        note: `p99 ${tls.p99Ms.toFixed(1)} (${tls.samples}); only mailstop offers STARTTLS here`,
      });
    });

    await scenario("arrival-wait", async () => {
      // Every mailstop column the run has: the monolith on s3rver first (the targets are its).
      const columns = (["mailstop", "mailstop-dir", "mailstop-embedded", "mailstop-fleet"] as const).filter((name) => name === "mailstop" || (args.targets.has(name) && name in byName));
      for (const when of ["idle", "background"] as const) {
        const options = when === "idle" ? { ...plan.arrival, backgroundPerSecond: 0 } : { ...plan.arrival, maxMs: plan.arrivalBackgroundMs, backgroundPerSecond: plan.backgroundPerSecond };
        const results: Partial<Record<(typeof columns)[number], ArrivalWaitResult>> = {};
        for (const name of columns) results[name] = await arrivalToWait(byName[name] as MailstopTarget | MailstopFleetTarget, options);
        for (const [name, result] of Object.entries(results)) details[`arrival-wait.${when}${name === "mailstop" ? "" : `.${name}`}`] = result;
        const result = results.mailstop!;
        const describe = (name: string, each: ArrivalWaitResult) =>
          `${name}: ${each.samples} sends, ${each.missed} missed, max ${each.maxMs.toFixed(1)} ms${when === "background" ? `, background ${each.backgroundPerSecond.toFixed(0)} msg/s` : ""}`;
        const note = Object.entries(results).map(([name, each]) => describe(name, each!)).join("; ");
        const label = when === "idle" ? "idle" : `under ${plan.backgroundPerSecond} msg/s ingest`;
        const column = (pick: (each: ArrivalWaitResult) => number) => Object.fromEntries(Object.entries(results).map(([name, each]) => [name, pick(each!)]));
        rows.push({ scenario: `arrival → wait p50, ${label}`, unit: "ms", values: column((each) => each.p50Ms), note, target: { text: "≤ 5 ms", pass: result.p50Ms <= 5 } });
        const limit = when === "idle" ? 20 : 50;
        rows.push({ scenario: `arrival → wait p99, ${label}`, unit: "ms", values: column((each) => each.p99Ms), target: { text: `≤ ${limit} ms`, pass: result.p99Ms <= limit && result.missed === 0 } });
        const laptop = results["mailstop-embedded"];
        if (when === "idle" && laptop !== undefined) {
          rows.push({ scenario: "  embedded (`pnpm start`): arrival → wait p50, idle", unit: "ms", values: { "mailstop-embedded": laptop.p50Ms }, target: { text: "≤ 5 ms", pass: laptop.p50Ms <= 5 && laptop.missed === 0 } });
        }
      }
    });

    await scenario("held-waits", async () => {
      const result = await heldWaits(mailstop, plan.heldWaits);
      details["held-waits"] = result;
      const n = result.waits.toLocaleString("en");
      rows.push({
        scenario: `${n} held waits: server RSS`,
        unit: "MB",
        values: { mailstop: result.rssHeldBytes / MB },
        note: `${(result.rssIdleBytes / MB).toFixed(0)} MB before the waits; ${result.inboxes} inboxes`,
        target: { text: "≤ 200 MB", pass: result.rssHeldBytes / MB <= 200 },
      });
      rows.push({
        scenario: `${n} held waits: wake all`,
        unit: "ms",
        values: { mailstop: result.wakeAllMs },
        note: `first send → last response; ${result.wakeAfterLast250Ms.toFixed(0)} ms after the last 250; ${result.matched} matched`,
        target: { text: "≤ 2,000 ms", pass: result.wakeAllMs <= 2000 && result.matched === result.waits },
      });
      rows.push({ scenario: `${n} held waits: event-loop delay p99`, unit: "ms", values: { mailstop: result.eventLoopDelayP99Ms }, note: `max ${result.eventLoopDelayMaxMs} ms while held` });
      // The same on a split waiter process (`--target waiter`), as a fleet holds them.
      const split = await heldWaits(mailstop, { ...plan.heldWaits, via: await mailstop.startWaiter() });
      details["held-waits.split-waiter"] = split;
      rows.push({
        scenario: `  same on a split waiter process: RSS / wake all`,
        unit: "MB",
        values: { mailstop: split.rssHeldBytes / MB },
        note: `${(split.rssIdleBytes / MB).toFixed(0)} MB before the waits; all woken in ${split.wakeAllMs.toFixed(0)} ms (${split.matched} matched); event-loop delay p99 ${split.eventLoopDelayP99Ms} ms`,
      });
    });

    await scenario("held-streams", async () => {
      const result = await heldStreams(mailstop, plan.heldStreams);
      details["held-streams"] = result;
      const n = result.streams.toLocaleString("en");
      rows.push({
        scenario: `${n} open streams: server RSS`,
        unit: "MB",
        values: { mailstop: result.rssHeldBytes / MB },
        note: `${(result.rssIdleBytes / MB).toFixed(0)} MB before; all open in ${result.openMs.toFixed(0)} ms`,
        target: { text: "≤ 250 MB", pass: result.rssHeldBytes / MB <= 250 },
      });
      rows.push({
        scenario: `${n} open streams: 250 → frame p50`,
        unit: "ms",
        values: { mailstop: result.deliveryP50Ms },
        note: `max ${result.deliveryMaxMs.toFixed(1)} ms over ${result.deliveries} frames (${result.streams / result.inboxes} streams per inbox)`,
      });
      const split = await heldStreams(mailstop, { ...plan.heldStreams, via: await mailstop.startWaiter() });
      details["held-streams.split-waiter"] = split;
      rows.push({
        scenario: `  same on a split waiter process: RSS`,
        unit: "MB",
        values: { mailstop: split.rssHeldBytes / MB },
        note: `${(split.rssIdleBytes / MB).toFixed(0)} MB before; 250 → frame p50 ${split.deliveryP50Ms.toFixed(1)} ms, max ${split.deliveryMaxMs.toFixed(1)} ms`,
      });
    });

    await scenario("reads", async () => {
      // A filled inbox on each server that has a read API.
      const inbox = await mailstop.createInbox(`reads.${Date.now().toString(36)}`);
      const maildevTag = `reads-${Date.now().toString(36)}@maildev.example`;
      for (const [port, to] of [
        [mailstop.smtpPort, inbox.address],
        [maildev.smtpPort, maildevTag],
      ] as const) {
        const pool = await openPool(port, 10);
        await Promise.all(pool.map(async (client, lane) => {
          for (let i = 0; i < 20; i++) await client.send(SENDER, to, message("2kb", to, `reads ${lane}-${i}`));
        }));
        for (const client of pool) client.close();
      }
      let ids: string[] = [];
      await until(async () => (ids = await mailstop.listIds(inbox.id)).length >= 200, "200 messages to read", 30_000);
      const maildevEmails = (await (await fetch(`${maildev.webUrl}/email`)).json()) as Array<{ id: string; subject: string }>;
      const maildevOne = maildevEmails.find((e) => e.subject.startsWith("reads "))!;
      const auth = { authorization: `Bearer ${mailstop.apiKey}` };
      const rate = 1000;
      const one = {
        mailstop: await mailstop.profilePhase("reads-get", () => readLoad(`${mailstop.url}/v1/messages/${ids[100]}`, auth, { rate, connections: 20, durationS: plan.readsS })),
        maildev: await readLoad(`${maildev.webUrl}/email/${maildevOne.id}`, {}, { rate, connections: 20, durationS: plan.readsS }),
      };
      // The same read on the embedded and fleet columns, each with an inbox of its own filled the same way.
      const others: Partial<Record<"mailstop-embedded" | "mailstop-fleet", Awaited<ReturnType<typeof readLoad>>>> = {};
      for (const other of [embedded, fleet]) {
        if (other === null) continue;
        const id = await filledMessage(other, 200);
        others[other.name as keyof typeof others] = await readLoad(`${other.url}/v1/messages/${id}`, { authorization: `Bearer ${other.apiKey}` }, { rate, connections: 20, durationS: plan.readsS });
      }
      details["reads.get"] = { ...one, ...others };
      const otherNotes = Object.entries(others).map(([name, each]) => `; ${name} ${each!.requestsPerSecond.toFixed(0)} req/s, p50 ${each!.p50Ms} ms, failed ${each!.failed}`);
      rows.push({
        scenario: `GET one message at ${rate} req/s: p99`,
        unit: "ms",
        values: { mailstop: one.mailstop.p99Ms, maildev: one.maildev.p99Ms, ...Object.fromEntries(Object.entries(others).map(([name, each]) => [name, each!.p99Ms])) },
        note: `achieved mailstop ${one.mailstop.requestsPerSecond.toFixed(0)}, MailDev ${one.maildev.requestsPerSecond.toFixed(0)} req/s; p50 ${one.mailstop.p50Ms} / ${one.maildev.p50Ms} ms; failed ${one.mailstop.failed} / ${one.maildev.failed}${otherNotes.join("")}`,
        target: {
          text: "≤ 10 ms and < MailDev",
          pass: one.mailstop.p99Ms <= 10 && one.mailstop.p99Ms < one.maildev.p99Ms && one.mailstop.failed === 0 && one.mailstop.requestsPerSecond >= rate * 0.95,
        },
      });
      const filtered = {
        mailstop: await readLoad(`${mailstop.url}/v1/messages?inbox=${encodeURIComponent(inbox.address)}&subject_contains=reads%205-&limit=50`, auth, { connections: 10, durationS: plan.readsS }),
        maildev: await readLoad(`${maildev.webUrl}/email?subject=${encodeURIComponent(maildevOne.subject)}`, {}, { connections: 10, durationS: plan.readsS }),
      };
      details["reads.list"] = filtered;
      rows.push({
        scenario: "filtered list, 10 connections flat out",
        unit: "req/s",
        values: { mailstop: filtered.mailstop.requestsPerSecond, maildev: filtered.maildev.requestsPerSecond },
        note: `p99 ${filtered.mailstop.p99Ms} / ${filtered.maildev.p99Ms} ms; mailstop: GET /v1/messages?inbox&subject_contains (200 in the inbox), MailDev: GET /email?subject= (${maildevEmails.length} stored)`,
      });
    });

    /** A scenario pricing one setting: its result in the details, its rows without → with in the table. */
    const costScenario = <V extends string>(name: "limits-cost" | "metrics-cost", measure: () => Promise<CostResult<V>>, spec: CostRowSpec<V>) =>
      scenario(name, async () => {
        const result = await measure();
        details[name] = result;
        rows.push(...costRows(result, spec));
      });
    await costScenario("limits-cost", () => limitsCost(mailstop, plan.limitsCost), {
      subject: "limits cost",
      variants: VARIANTS,
      rounds: plan.limitsCost.rounds,
      without: { variant: "without", text: "no rate limiter, no limits set", note: "MAILSTOP_RATE_LIMITS=off, a project without limits" },
      with: { variant: "both", text: "with the rate limiter and organisation limits checked" },
      detail: (figures) =>
        `rate limiter only ${figures["rate limiter"].mean.toFixed(2)} ms (p99 ${figures["rate limiter"].p99.toFixed(1)}), ` +
        `limits only ${figures.metering.mean.toFixed(2)} ms (p99 ${figures.metering.p99.toFixed(1)})`,
    });
    await costScenario("metrics-cost", () => metricsCost(mailstop, plan.metricsCost), {
      subject: "metrics cost",
      variants: METRICS_VARIANTS,
      rounds: plan.metricsCost.rounds,
      without: { variant: "without", text: "metrics off", note: "MAILSTOP_METRICS=off, rate limits on" },
      with: { variant: "with", text: "with Prometheus metrics recorded" },
    });
  } finally {
    log("stopping servers, dropping the bench database and Redis keys");
    await stopAll();
  }

  await sleep(0);
  const finishedAt = new Date();
  let commit = "unknown";
  try {
    commit = execSync("git rev-parse --short HEAD", { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
  } catch {
    // not a git checkout
  }
  const report: Report = {
    mode,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_s: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    machine: {
      cpus: os.cpus()[0]?.model ?? "unknown",
      cores: os.cpus().length,
      memory_gb: os.totalmem() / 1024 ** 3,
      node: process.versions.node,
      os: `${os.type()} ${os.release()}`,
      load_before: loadBefore,
      load_after: os.loadavg(),
    },
    commit,
    notes,
    rows,
    details: { ...details, errors },
  };
  const text = renderText(report);
  process.stdout.write(`\n${text}\n\n`);
  // A narrowed run (--only, --targets) never replaces the full run's table.
  const narrowed = process.argv.some((a) => a.startsWith("--only=") || a.startsWith("--targets="));
  const stem = mode === "quick" ? "quick" : narrowed ? "partial" : "latest";
  await writeFile(join(resultsDir, `${stem}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(resultsDir, `${stem}.md`), renderMarkdown(report));
  log(`wrote ${join(resultsDir, `${stem}.json`)} and ${stem}.md in ${report.duration_s.toFixed(0)} s`);
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
