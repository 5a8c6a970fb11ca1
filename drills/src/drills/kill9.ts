import { type DrillCase, type DrillContext, serviceCases } from "../harness/drill";
import type { ServiceName } from "../harness/service";
import { sleep } from "../harness/time";

/** How long a killed process stays down before it is started again, as an orchestrator's restart delay. */
const DOWN_MS = 1_000;

/**
 * kill -9 of one process under ingest, then a restart on the same ports (the embedded
 * monolith: on the same data directory, so PGlite recovers its own files). The load retries
 * what the crash cut, as MTAs do; every 250 must be readable afterwards.
 */
async function killUnderIngest(ctx: DrillContext, name: ServiceName): Promise<void> {
  const service = ctx.target.service(name);
  const load = ctx.load(await ctx.inboxes(4));
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();
  const exit = await service.kill();
  ctx.check(exit.signal === "SIGKILL", `${name} ended with ${JSON.stringify(exit)} instead of SIGKILL`);
  await sleep(DOWN_MS);
  const restarting = Date.now();
  await service.start();
  ctx.note(`down ${DOWN_MS / 1000} s, serving ${((Date.now() - restarting) / 1000).toFixed(1)} s after its restart`);
  await ctx.flowing(load, "the restart");
  await ctx.ingest();
  await load.stop();
  const result = await ctx.tally(load.messages);
  if (result.duplicated > 0) ctx.note(`${result.duplicatedAfterRetry} duplicate(s) from the sender's retry after a try cut after its dot`);
}

const kill9 = { id: "kill9", name: "kill -9", run: killUnderIngest };

export const kill9Cases: DrillCase[] = [
  ...serviceCases(kill9, "monolith", ["all"], () => true),
  ...serviceCases(kill9, "embedded", ["all"], () => true),
  ...serviceCases(kill9, "fleet", ["smtp-edge", "parser", "api", "waiter"], (s) => s === "parser"),
];
