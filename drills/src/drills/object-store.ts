import type { DrillCase, DrillContext } from "../harness/drill";
import { TransactionInData } from "../harness/held";
import { Connection, deliver } from "../harness/load";
import type { TargetKind } from "../harness/target";
import { sleep } from "../harness/time";

/** Transactions held in the middle of DATA when the store goes away. */
const IN_DATA = 6;

/**
 * The object store goes away while transactions are in DATA: stopped (kill -9: connections
 * refused) or frozen (SIGSTOP: connections hang, so only the edge's 10 s deadline answers).
 * Every transaction that ends while it is away must be answered 451, none 250: the raw source
 * is half of what a 250 promises. The load's senders retry their 451s once the store is back,
 * which is where SMTP allows a second copy (a put that landed after its deadline).
 */
async function storeAwayDuringData(ctx: DrillContext, how: "stopped" | "frozen"): Promise<void> {
  const { s3 } = ctx.engines;
  const inboxes = await ctx.inboxes(4);
  const load = ctx.load(inboxes);
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();
  const held = await Promise.all(Array.from({ length: IN_DATA }, (_, i) => TransactionInData.begin(ctx.target.smtpPort, ctx.message([inboxes[i % inboxes.length]!], "in DATA when the store went away"))));
  if (how === "stopped") await s3.kill();
  else s3.freeze();
  const away = Date.now();
  const replies = await Promise.all(held.map((transaction) => transaction.finish(30_000)));
  const codes = replies.map((reply) => reply?.code ?? "none");
  ctx.note(`${IN_DATA} transactions in DATA answered ${summarise(codes)}`);
  ctx.check(codes.every((code) => code === 451), `transactions in DATA while the store was ${how} were answered ${codes.join(", ")} (every one must be 451)`);
  // The load goes on against the missing store for a while: each of its tries must be refused too.
  await sleep(how === "frozen" ? 12_000 : 3_000);
  const back = Date.now();
  if (how === "stopped") await s3.start();
  else s3.thaw();
  ctx.note(`store ${how} ${((back - away) / 1000).toFixed(0)} s`);
  const during = load.messages.flatMap((m) => m.attempts).filter((a) => a.code === 250 && a.dotAt !== undefined && a.dotAt > away && a.at < back);
  ctx.check(during.length === 0, `${during.length} 250s for transactions ended while the store was ${how}`);
  const refused = load.messages.flatMap((m) => m.attempts).filter((a) => a.code === 451 && a.at >= away && a.at <= back + 10_000).length;
  ctx.note(`${refused} load tries answered 451 meanwhile, each retried by its sender`);
  // The messages held in DATA are retried as an MTA would, once the store is back.
  await ctx.flowing(load, `the store was ${how === "stopped" ? "started" : "thawed"}`, 20, 90_000);
  await ctx.ingest();
  for (const transaction of held) await retry(ctx, transaction);
  await load.stop();
  const result = await ctx.tally([...load.messages, ...held.map((t) => t.message)]);
  if (result.duplicated > 0) ctx.note(`${result.duplicatedAfterRetry} duplicate(s): a try answered 451 was stored all the same, and so was its retry`);
  if (result.storedWithout250 > 0) ctx.note(`${result.storedWithout250} message(s) stored though answered 451 and never retried to a 250`);
}

async function retry(ctx: DrillContext, transaction: TransactionInData): Promise<void> {
  const connection = new Connection(() => ctx.target.smtpPort);
  const giveUpAt = Date.now() + 60_000;
  await deliver(connection, transaction.message, () => giveUpAt);
  await connection.quit();
}

function summarise(codes: Array<number | string>): string {
  const counts = new Map<string, number>();
  for (const code of codes) counts.set(String(code), (counts.get(String(code)) ?? 0) + 1);
  return [...counts].map(([code, n]) => `${n}×${code}`).join(", ");
}

const applies: TargetKind[] = ["monolith", "fleet"];

export const objectStoreCases: DrillCase[] = [
  ...applies.map((target): DrillCase => ({ id: "object-store-stopped", drill: "object store stopped during DATA", target, quick: target === "monolith", run: (ctx) => storeAwayDuringData(ctx, "stopped") })),
  ...applies.map((target): DrillCase => ({ id: "object-store-frozen", drill: "object store frozen during DATA", target, quick: false, run: (ctx) => storeAwayDuringData(ctx, "frozen") })),
  /**
   * The same with the product's kind of grace period (above the edge's 10 s write deadline): with
   * 3 s the reconciler requeues a transaction whose put is still pending at the edge, and the
   * copy it parses after the thaw outlives the 451 (see drills/README.md).
   */
  ...applies.map((target): DrillCase => ({
    id: "object-store-frozen",
    drill: "object store frozen during DATA, grace 15 s",
    target,
    quick: false,
    graceS: 15,
    run: (ctx) => storeAwayDuringData(ctx, "frozen"),
  })),
];
