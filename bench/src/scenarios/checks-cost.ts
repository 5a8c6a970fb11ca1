import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { CONFIG_SPEC } from "../../../packages/config/src/schema";
import { checkAuthentication } from "../../../packages/parser/src/checks/authentication";
import { checkHtmlSupport } from "../../../packages/parser/src/checks/html-support";
import { HTML_2KB, SENDER, message } from "../lib/mail";
import { mean, median, p99 } from "../lib/stats";
import type { Row } from "../report";
import { databaseServer } from "../targets/lineup";
import { type MailstopTarget, startMailstop } from "../targets/mailstop";
import { type IngestResult, ingest } from "./ingest";
import type { Scenario } from "./scenario";

/**
 * What the parser's message checks cost on ingest (issue 35), measured in one run: 2 KB
 * messages with an HTML part ingested at one concurrency into two monoliths identical but for
 * `MAILSTOP_CHECKS` (`none` against the default `authentication,html`), a warm-up pass of each
 * first, then rounds that interleave the two (their order alternating), so a drift of the
 * machine's speed falls on both; and each check's time per message in this process, over the
 * same message.
 *
 * Why two real-engine monoliths on the directory store, started for this scenario: the checks
 * run in the parser, and in a monolith the parser shares one event loop with the edge and the
 * API, as an installation runs it, so their CPU comes straight off the visible rate; the
 * directory store leaves out s3rver, whose CPU is most of the s3 column's figure and would
 * dilute the difference; and fresh processes on empty databases of their own keep the two
 * variants alike (the lineup's monolith has taken earlier scenarios' mail). A split parser
 * would measure the checks against a parser with time to spare, where the edge or PostgreSQL
 * sets the rate and hides them. Every process resolves through the run's loopback DNS server
 * (NXDOMAIN to every name, targets/lineup.ts): the authentication figure is its CPU and a
 * loopback round trip per name and minute, not a real resolver's latency.
 */
export interface ChecksCostOptions {
  concurrency: number;
  durationMs: number;
  warmUpMs: number;
  rounds: number;
  /** How long each check is timed in this process. */
  inProcessMs: number;
}

export const CHECKS_VARIANTS = ["off", "on"] as const;
export type ChecksVariant = (typeof CHECKS_VARIANTS)[number];
const CHECKS_SETTING: Record<ChecksVariant, string> = { off: "none", on: "authentication,html" };

/** One check's time per message in this process, sequentially. */
export interface CheckTiming {
  count: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  /** What the check found on the last message. */
  status: string | null;
}

export interface ChecksCostResult {
  concurrency: number;
  rounds: Record<ChecksVariant, IngestResult[]>;
  inProcess: { authentication: CheckTiming; html: CheckTiming };
}

async function timeEach(durationMs: number, check: (i: number) => Promise<{ status: string } | null> | { status: string } | null): Promise<CheckTiming> {
  const times: number[] = [];
  let status: string | null = null;
  // Not counted: the first calls compile the check and fill the DNS channel's cache.
  for (let i = 0; i < 20; i++) await check(-i);
  const started = performance.now();
  while (performance.now() - started < durationMs || times.length < 20) {
    const t0 = performance.now();
    status = (await check(times.length))?.status ?? null;
    times.push(performance.now() - t0);
  }
  return { count: times.length, meanMs: mean(times), p50Ms: median(times), p99Ms: p99(times), status };
}

/** Each check, as the parser calls it, on the scenario's message, one message after another. */
export async function timeChecks(durationMs: number): Promise<ChecksCostResult["inProcess"]> {
  const dnsServers = process.env.MAILSTOP_DNS_SERVERS?.split(",");
  // Never the machine's resolvers: the lineup sets the run's loopback server.
  if (!dnsServers) throw new Error("checks-cost: MAILSTOP_DNS_SERVERS is not set");
  const clients = CONFIG_SPEC.MAILSTOP_HTML_CLIENTS.default!;
  const connection = { address: "127.0.0.1", helo: "bench.example", mailFrom: SENDER };
  return {
    authentication: await timeEach(durationMs, (i) => checkAuthentication(message("2kb-html", "checks@bench.example", `checks #${i}`), connection, dnsServers)),
    html: await timeEach(durationMs, () => checkHtmlSupport(HTML_2KB, clients)),
  };
}

/** The two monoliths, started side by side; ingest into each, interleaved; then the checks in process. */
export async function checksCost(logDir: string, options: ChecksCostOptions): Promise<ChecksCostResult> {
  const start = async (variant: ChecksVariant) => {
    const dir = join(logDir, `checks-${variant}`);
    await mkdir(dir, { recursive: true });
    return startMailstop({
      logDir: dir,
      databaseServer: databaseServer(),
      redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      objectStore: "directory",
      env: { MAILSTOP_CHECKS: CHECKS_SETTING[variant] },
    });
  };
  const started = await Promise.allSettled(CHECKS_VARIANTS.map(start));
  const targets = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const byVariant = Object.fromEntries(CHECKS_VARIANTS.map((variant, i) => [variant, targets[i]!])) as Record<ChecksVariant, MailstopTarget>;
    const run = (variant: ChecksVariant, durationMs: number) => ingest(byVariant[variant], "2kb-html", options.concurrency, durationMs);
    // New processes: a pass of each first, not counted (compilation, first connections, first inbox).
    for (const variant of CHECKS_VARIANTS) await run(variant, options.warmUpMs);
    const rounds: ChecksCostResult["rounds"] = { off: [], on: [] };
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? CHECKS_VARIANTS : [...CHECKS_VARIANTS].reverse();
      for (const variant of order) rounds[variant].push(await run(variant, options.durationMs));
    }
    return { concurrency: options.concurrency, rounds, inProcess: await timeChecks(options.inProcessMs) };
  } finally {
    await Promise.all(targets.map((target) => target.stop()));
  }
}

const rates = (runs: readonly IngestResult[]) => runs.map((r) => r.visiblePerSecond);

/**
 * Three rows: the visible rate with the checks off, then on (means of the rounds), then the
 * checks' time per message in process, with what the two rates imply beside it. The share of
 * off that on keeps, and the time a message the checks add, are taken round by round (the two
 * runs of a round follow each other, so a drift of the machine's speed between rounds cancels
 * out), then averaged; the target:
 * the default checks keep at least half of ingest, and no send failed.
 */
export function checksCostRows(result: ChecksCostResult): Row[] {
  const [off, on] = [mean(rates(result.rounds.off)), mean(rates(result.rounds.on))];
  const shares = result.rounds.on.map((run, round) => run.visiblePerSecond / result.rounds.off[round]!.visiblePerSecond);
  const share = mean(shares);
  const extraMs = mean(result.rounds.on.map((run, round) => 1000 / run.visiblePerSecond - 1000 / result.rounds.off[round]!.visiblePerSecond));
  const failed = [...result.rounds.off, ...result.rounds.on].reduce((sum, r) => sum + r.failed, 0);
  const roundsOf = (variant: ChecksVariant) => `rounds ${rates(result.rounds[variant]).map((r) => r.toFixed(0)).join(", ")}; 250s/s ${mean(result.rounds[variant].map((r) => r.acceptedPerSecond)).toFixed(0)}`;
  const { authentication, html } = result.inProcess;
  const label = `ingest 2 KB HTML c=${result.concurrency}, visible`;
  return [
    {
      scenario: `${label}: checks off`,
      unit: "msg/s",
      values: { "mailstop-dir": off },
      note: `MAILSTOP_CHECKS=none, a directory-store monolith of its own; ${roundsOf("off")}; mean of ${result.rounds.off.length} rounds interleaved with the row below`,
    },
    {
      scenario: "  same with authentication and HTML checks",
      unit: "msg/s",
      values: { "mailstop-dir": on },
      note: `MAILSTOP_CHECKS=authentication,html (the default); ${roundsOf("on")}; ${(100 * share).toFixed(0)} % of checks off (round by round ${shares.map((s) => `${(100 * s).toFixed(0)} %`).join(", ")}); failed ${failed}`,
      target: { text: "≥ 0.5 × checks off, round by round; none failed", pass: share >= 0.5 && failed === 0 },
    },
    {
      scenario: "  the checks' time per message, 2 KB HTML (in process)",
      unit: "ms",
      values: { "mailstop-dir": authentication.meanMs + html.meanMs },
      note:
        `authentication ${authentication.meanMs.toFixed(2)} ms (p99 ${authentication.p99Ms.toFixed(2)}, ${authentication.status}), ` +
        `html ${html.meanMs.toFixed(2)} ms (p99 ${html.p99Ms.toFixed(2)}, ${html.status}), ${authentication.count} and ${html.count} messages one after another; ` +
        `from the rates above, round by round, 1/on − 1/off = ${extraMs.toFixed(2)} ms more of the monolith's time a message`,
    },
  ];
}

export const checksCostScenario: Scenario = {
  name: "checks-cost",
  async run(ctx) {
    const result = await checksCost(ctx.logDir, ctx.plan.checksCost);
    ctx.details["checks-cost"] = result;
    ctx.rows.push(...checksCostRows(result));
  },
};
