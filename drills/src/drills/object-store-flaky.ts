import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type DrillCase, type DrillContext, casesOn } from "../harness/drill";
import type { FaultPlan, ProxiedRequest } from "../harness/s3-fault-proxy";
import { say, sleep, until } from "../harness/time";

/** Requests answered 500 or 503, and held past the edge's 10 s write deadline (then answered or cut). */
const PLAN: Omit<FaultPlan, "seed"> = { errorShare: 0.2, stallShare: 0.05, stallMs: 12_000 };
/** How long the load runs on the flaky store. */
const LOAD_MS = 20_000;
/**
 * The orphan sweep's age and period on the target: an object is an orphan once its transaction
 * is 20 s old (past the edge's 10 s deadline and the proxy's 12 s stall, after which nothing
 * lands) and no row knows it; looked for every 5 s instead of hourly.
 */
const SWEEP_AGE_S = 20;
const SWEEP_INTERVAL_S = 5;
const SUFFIX = "._S3rver_object";

/** `…/tx/<transaction id>/raw.eml`: the raw put of a transaction. */
const RAW_PUT = /\/tx\/([0-9a-hjkmnp-tv-z]{26})\/raw\.eml$/i;

/** Every object key in the bucket, from s3rver's files (not through the proxy or the product). */
function objectKeys(root: string): string[] {
  const keys: string[] = [];
  const walk = (dir: string, prefix: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith(SUFFIX)) keys.push(`${prefix}${entry.name.slice(0, -SUFFIX.length)}`);
    }
  };
  walk(root, "");
  return keys;
}

/** The transaction folder (`projects/<p>/tx/<t>/`) of a key, or null for anything else (the ready probe). */
const folderOf = (key: string) => /^(projects\/[^/]+\/tx\/[^/]+\/)/.exec(key)?.[1] ?? null;

/** How the client saw each transaction's raw puts: in time (any try answered without a fault) or not. */
function rawPuts(requests: ProxiedRequest[]): Map<string, { tries: number; faults: string[]; inTime: boolean }> {
  const puts = new Map<string, { tries: number; faults: string[]; inTime: boolean }>();
  for (const request of requests) {
    const id = request.method === "PUT" ? RAW_PUT.exec(request.path)?.[1]?.toLowerCase() : undefined;
    if (id === undefined) continue;
    const put = puts.get(id) ?? { tries: 0, faults: [], inTime: false };
    put.tries += 1;
    if (request.fault === "none") put.inTime = true;
    else put.faults.push(request.fault);
    puts.set(id, put);
  }
  return puts;
}

const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

/**
 * A flaky object store under SMTP load: the target reaches s3rver through the fault proxy,
 * which answers 20 % of requests with S3's 500 or 503 (half of them after the store acted on
 * them: a put landed, a delete done) and holds 5 % for 12 s, past the edge's write deadline,
 * before answering or cutting. minio retries a 5xx once by itself; what the edge saw is the
 * outcome. Every transaction whose raw put failed as the edge saw it must be answered 451 (never
 * 250), nothing answered 250 may be lost, and once the load is over the orphan sweep (every 5 s,
 * age 20 s here) must leave no object that no message row knows, and take none that one does.
 */
async function flakyStore(ctx: DrillContext): Promise<void> {
  const { target } = ctx;
  const proxy = ctx.engines.s3Proxy;
  const bucketDir = join(ctx.engines.s3.directory, target.bucket!);
  const query = <T extends Record<string, unknown>>(sql: string) => ctx.engines.postgres.query<T>(sql, [], target.database!);
  const load = ctx.load(await ctx.inboxes(4));
  await ctx.flowing(load, "the load began", 40);
  const seed = Math.floor(Math.random() * 2 ** 31);
  proxy.faults({ ...PLAN, seed });
  const faultsFrom = Date.now();
  const acceptedBefore = load.acceptedCount();
  await sleep(LOAD_MS);
  const during = load.acceptedCount() - acceptedBefore;
  ctx.note(`seed ${seed}: ${during} messages accepted in ${((Date.now() - faultsFrom) / 1000).toFixed(0)} s on the flaky store`);
  ctx.check(during > 0, "nothing accepted while the store was flaky");
  await load.stop();
  const loadEnded = Date.now();
  await ctx.tally(load.messages);

  // What the edge saw of its raw puts, against what it answered.
  const puts = rawPuts(proxy.requests);
  const failedPuts = [...puts].filter(([, put]) => !put.inTime).map(([id]) => id);
  const retried = [...puts.values()].filter((put) => put.tries > 1);
  const edgeLogs = target.edges.map((edge) => edge.process.log()).join("\n");
  const refused = new Set([...edgeLogs.matchAll(/"transaction_id":"([0-9a-hjkmnp-tv-z]{26})"[^\n]*"msg":"transaction not accepted; replied 451"/gi)].map((m) => m[1]!.toLowerCase()));
  const answered250 = new Set(load.messages.flatMap((m) => m.attempts).filter((a) => a.code === 250 && a.transaction).map((a) => a.transaction!.toLowerCase()));
  const tries451 = load.messages.flatMap((m) => m.attempts).filter((a) => a.code === 451 && a.stage === "dot").length;
  const faultsOnPuts = [...puts.values()].flatMap((put) => put.faults);
  const byFault = (name: string) => faultsOnPuts.filter((f) => f === name).length;
  ctx.note(
    `raw puts: ${puts.size} transactions, ${faultsOnPuts.length} tries faulted (${byFault("error-before") + byFault("error-after")} 500/503, ${byFault("stall-answer") + byFault("stall-drop")} stalled 12 s); ` +
      `minio retried ${retried.length} puts itself (${retried.filter((put) => put.inTime).length} then in time); ` +
      `${failedPuts.length} transactions' puts failed as the edge saw them, the edge logged ${refused.size} refusals and the senders got ${tries451} 451s after DATA`,
  );
  const failed250 = failedPuts.filter((id) => answered250.has(id));
  ctx.check(failed250.length === 0, `${failed250.length} transactions answered 250 though their raw put failed (e.g. ${failed250[0]})`);
  const unanswered = failedPuts.filter((id) => !refused.has(id));
  ctx.check(unanswered.length === 0, `${unanswered.length} transactions whose raw put failed were not refused with 451 by the edge (e.g. ${unanswered[0]})`);
  ctx.check(failedPuts.length > 0, "no raw put failed: the proxy injected nothing");
  ctx.note(`minio's retry lines in the edge's log: ${count(edgeLogs, /Retrying request/g)}`);

  // Orphans: folders no message row knows (refused transactions whose clean-up failed, puts that landed late).
  const messageFolders = async () => new Set((await query<{ raw_key: string }>("select raw_key from messages")).map((row) => folderOf(row.raw_key)));
  const orphans = async () => {
    const known = await messageFolders();
    return [...new Set(objectKeys(bucketDir).map(folderOf).filter((f): f is string => f !== null))].filter((folder) => !known.has(folder));
  };
  const leftAfterLoad = (await orphans()).length;
  let left = leftAfterLoad;
  const gone = await until(
    "the orphan sweep to leave no object without a message",
    async () => (left = (await orphans()).length) === 0,
    SWEEP_AGE_S * 1000 + 150_000,
    1_000,
  ).then(
    () => true,
    () => false,
  );
  const parserLog = target.service("parser").process.log();
  const sweeps = [...parserLog.matchAll(/"transactions":(\d+)[^\n]*"msg":"swept raw objects no transaction or message knows"/g)].map((m) => Number(m[1]));
  // A run that fails half-way (a list or delete answered 500) has removed folders all the same, unlogged.
  const failedJobs = (name: string) => count(parserLog, new RegExp(`"job":"${name}"[^\n]*"msg":"job failed"`, "g"));
  ctx.note(
    `${leftAfterLoad} transaction folders no message knows once every 250 was readable; ${gone ? `none left ${((Date.now() - loadEnded) / 1000).toFixed(0)} s after the load ended` : `${left} still there`} ` +
      `(sweep runs that finished and removed some: ${sweeps.length}, ${sweeps.reduce((a, b) => a + b, 0)} folders; sweep runs failed on the store and retried: ${failedJobs("sweep-orphans")}; parse jobs failed on it and retried: ${failedJobs("parse-message")})`,
  );
  ctx.check(gone, `${left} transaction folders no message knows outlived the orphan sweep (age ${SWEEP_AGE_S} s, every ${SWEEP_INTERVAL_S} s)`);

  // The sweep must have taken nothing a message needs: every message's raw source is still there.
  const keys = new Set(objectKeys(bucketDir));
  const rows = await query<{ raw_key: string }>("select raw_key from messages");
  const missing = rows.filter((row) => !keys.has(row.raw_key));
  ctx.note(`${keys.size} objects, ${rows.length} message rows at the end`);
  ctx.check(missing.length === 0, `${missing.length} messages lost their raw source (e.g. ${missing[0]?.raw_key})`);
  proxy.calm();
  say(`${ctx.row.drill} on ${target.kind}: ${proxy.requests.length} requests through the proxy`);
}

export const objectStoreFlakyCases: DrillCase[] = casesOn(["monolith", "fleet"], null, {
  id: "object-store-flaky",
  drill: "flaky object store (20 % 5xx, 5 % stalled) under SMTP load",
  options: { s3ThroughProxy: true, env: { MAILSTOP_ORPHAN_SWEEP_AGE_S: String(SWEEP_AGE_S), MAILSTOP_ORPHAN_SWEEP_INTERVAL_S: String(SWEEP_INTERVAL_S) } },
  run: flakyStore,
});
