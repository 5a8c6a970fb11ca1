import { type DrillCase, type DrillContext, casesOn } from "../harness/drill";
import { sleep } from "../harness/time";

/** How long PostgreSQL stays down: longer than the edge's 10 s write deadline, so both refusals are seen. */
const DOWN_MS = 12_000;

/**
 * PostgreSQL `stop -m immediate` (no checkpoint, clients cut: a crash as they see it) under
 * ingest, then a start that replays the WAL. While it is down the edge must answer 4xx, never
 * 250; afterwards every 250 must be readable.
 */
async function postgresUnderIngest(ctx: DrillContext): Promise<void> {
  const { postgres } = ctx.engines;
  const load = ctx.load(await ctx.inboxes(4));
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();
  await postgres.stop("immediate");
  const down = Date.now();
  await sleep(ctx.quick ? 5_000 : DOWN_MS);
  const up = Date.now();
  await postgres.start();
  ctx.note(`PostgreSQL down ${((up - down) / 1000).toFixed(0)} s`);
  // A 250 needs its ledger row committed: none can be answered while the server is gone.
  const during = load.messages.flatMap((m) => m.attempts).filter((a) => a.code === 250 && a.dotAt !== undefined && a.dotAt > down + 500 && a.at < up);
  ctx.check(during.length === 0, `${during.length} 250s for transactions ended while PostgreSQL was down`);
  await ctx.flowing(load, "PostgreSQL started", 20, 90_000);
  await ctx.ingest();
  await load.stop();
  await ctx.tally(load.messages);
}

export const postgresCases: DrillCase[] = casesOn(["monolith", "fleet"], "monolith", { id: "postgres-immediate", drill: "PostgreSQL stop -m immediate + start", run: postgresUnderIngest });
