import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { request } from "../harness/api";
import type { DrillCase, DrillContext } from "../harness/drill";
import type { Attempt } from "../harness/load";
import { Filler, SmallDisk } from "../harness/small-disk";
import { sleep } from "../harness/time";

/**
 * The tmpfs the embedded monolith keeps its data on. A new PGlite database takes about 39 MiB and
 * the edge keeps MAILSTOP_MIN_FREE_DISK_MB (64 by default) free: about 25 MiB of mail fit before
 * it refuses on its own, and the filler takes everything well before that.
 */
const DISK_MIB = 128;
/** How long the disk stays full while the load goes on, the reads are checked and the filler takes back what is freed. */
const FULL_MS = 12_000;
/** Replies a sender may get for a transaction refused for want of space: retryable, never final. */
const RETRYABLE = new Set([451, 452]);

/**
 * The embedded monolith's data directory (PGlite and the objects) on a small tmpfs, filled by a
 * file of the drill's own while the load runs. Every transaction ended while the disk is full
 * must be answered 451 or 452 (the edge's free-space check says 452 4.3.1 before writing
 * anything), none 250 and none 5xx; the process stays up, its reads (GET /v1/messages,
 * /health) answer and /ready names smtp-edge as not ready; once the filler is deleted
 * ingestion resumes without a restart and /ready says ready. A restart on the same data
 * directory follows (PGlite opens what the full disk left) and every 250 must be readable.
 */
async function diskFull(ctx: DrillContext, disk: SmallDisk): Promise<void> {
  const service = ctx.target.service("all");
  const inboxes = await ctx.inboxes(4);
  const load = ctx.load(inboxes);
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();

  const filler = new Filler(join(disk.path, "filler"));
  await filler.fill();
  const fullAt = Date.now();
  ctx.note(`filler ${(filler.size / 2 ** 20).toFixed(1)} MiB left ${await disk.freeBytes()} bytes free`);
  const reads = { ok: 0, failed: [] as string[] };
  while (Date.now() - fullAt < FULL_MS) {
    // What a refused transaction gives back (its partial object) is taken again at once.
    await filler.fill();
    for (const path of ["/health", `/v1/messages?inbox=${inboxes[0]!.id}&limit=5`]) {
      const answer = await request(ctx.target.apiUrl, ctx.target.apiKey, "GET", path, undefined, 10_000).catch((error: Error) => ({ status: 0, body: error.message }));
      if (answer.status === 200) reads.ok += 1;
      else reads.failed.push(`${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`);
    }
    if (!service.running) break;
    await sleep(500);
  }
  const freedAt = Date.now();
  const ready = await request(ctx.target.apiUrl, "", "GET", "/ready", undefined, 10_000).catch((error: Error) => ({ status: 0, body: error.message }));
  const notReady: unknown = ready.body?.error?.details?.not_ready;
  ctx.note(`/ready while full: ${ready.status} not ready ${JSON.stringify(notReady)}`);
  ctx.check(ready.status === 503 && JSON.stringify(notReady) === '["smtp-edge"]', `/ready while full answered ${ready.status} ${JSON.stringify(ready.body).slice(0, 160)}, not 503 naming smtp-edge alone`);
  ctx.check(service.running, `the process exited while the disk was full (${JSON.stringify(service.process.exit)})`);
  ctx.check(reads.failed.length === 0, `${reads.failed.length} reads failed while the disk was full: ${reads.failed.slice(0, 3).join("; ")}`);
  ctx.note(`${reads.ok} reads answered 200 while full`);

  // A try whose final dot went out once the disk was full had nothing to make it durable on.
  const whileFull = (a: Attempt) => a.at >= fullAt && a.at <= freedAt && (a.dotAt ?? a.at) >= fullAt;
  const tries = load.messages.flatMap((m) => m.attempts).filter(whileFull);
  const atDot = tries.filter((a) => a.stage === "dot");
  ctx.note(`while full ${FULL_MS / 1000} s: ${summarise(tries.map((a) => a.code ?? "none"))} (${atDot.length} at the final dot)`);
  ctx.check(tries.length > 0, "no try ended while the disk was full: the load stalled");
  const wrong = tries.filter((a) => a.code === null || !RETRYABLE.has(a.code));
  ctx.check(wrong.length === 0, `${wrong.length} tries ended while full were not answered 451/452: ${wrong.slice(0, 3).map((a) => `${a.code ?? "none"} at ${a.stage} ${a.text.slice(0, 80)}`).join("; ")}`);
  ctx.note(`first reply while full: ${tries[0]?.code ?? "none"} ${tries[0]?.text.slice(0, 70) ?? ""}`);

  await filler.remove();
  if (service.running) await ctx.flowing(load, "space was freed", 20, 60_000);
  const readyAgain = await request(ctx.target.apiUrl, "", "GET", "/ready", undefined, 10_000).catch(() => ({ status: 0 }));
  ctx.check(readyAgain.status === 200, `/ready answered ${readyAgain.status} once space was freed, not 200`);
  await ctx.ingest();

  // A restart on what the full disk left: PGlite must open it, and every 250 must be there.
  if (service.running) await service.terminate(30_000);
  const restarting = Date.now();
  await service.start();
  ctx.note(`serving ${((Date.now() - restarting) / 1000).toFixed(1)} s after a restart`);
  await ctx.flowing(load, "the restart");
  await ctx.ingest();
  await load.stop();
  const result = await ctx.tally(load.messages);
  if (result.duplicated > 0) ctx.note(`${result.duplicatedAfterRetry} duplicate(s) from the sender's retry after a try answered 4xx after its dot`);
}

function summarise(codes: Array<number | string>): string {
  const counts = new Map<string, number>();
  for (const code of codes) counts.set(String(code), (counts.get(String(code)) ?? 0) + 1);
  return [...counts].map(([code, n]) => `${n}×${code}`).join(", ") || "no tries";
}

/** The case keeps its own disk between `prepare` and `run` (one case, one run). */
function diskFullCase(): DrillCase {
  let disk: SmallDisk | null = null;
  return {
    id: "disk-full",
    drill: "disk full under ingest",
    target: "embedded",
    quick: false,
    async prepare(engines) {
      disk = await SmallDisk.mount(engines.directory, `disk-full-${randomBytes(3).toString("hex")}`, DISK_MIB);
      const mounted = disk;
      return { dataDir: join(mounted.path, "data"), release: () => mounted.release() };
    },
    run: (ctx) => diskFull(ctx, disk!),
  };
}

export const diskFullCases: DrillCase[] = [diskFullCase()];
