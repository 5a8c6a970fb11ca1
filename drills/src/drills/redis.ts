import type { DrillCase, DrillContext } from "../harness/drill";
import type { TargetKind } from "../harness/target";
import { sleep } from "../harness/time";

/**
 * Redis lost under ingest: kill -9 and a restart without persistence (every queued parse job,
 * schedule and wait slot gone), or FLUSHALL (the same loss with Redis up). The accept ledger
 * must bring every accepted transaction back through the reconciler.
 */
async function redisUnderIngest(ctx: DrillContext, how: "kill" | "flushall"): Promise<void> {
  const { redis } = ctx.engines;
  const load = ctx.load(await ctx.inboxes(4));
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();
  if (how === "kill") {
    await redis.kill();
    await sleep(2_000);
    await redis.start();
    ctx.note("Redis down 2 s, restarted empty");
  } else {
    const keys = await redis.command("DBSIZE");
    await redis.command("FLUSHALL");
    ctx.note(`FLUSHALL dropped ${keys} keys`);
  }
  await ctx.flowing(load, how === "kill" ? "Redis restarted" : "FLUSHALL");
  await ctx.ingest();
  await load.stop();
  await ctx.tally(load.messages);
}

const applies: TargetKind[] = ["monolith", "fleet"];

export const redisCases: DrillCase[] = [
  ...applies.map((target): DrillCase => ({ id: "redis-kill", drill: "Redis kill -9 + restart", target, quick: target === "monolith", run: (ctx) => redisUnderIngest(ctx, "kill") })),
  ...applies.map((target): DrillCase => ({ id: "redis-flushall", drill: "Redis FLUSHALL", target, quick: false, run: (ctx) => redisUnderIngest(ctx, "flushall") })),
];
