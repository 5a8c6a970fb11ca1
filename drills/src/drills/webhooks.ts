import { startTestReceiver } from "@mailstop/testkit";
import { type Answer, call, read } from "../harness/api";
import type { DrillCase, DrillContext } from "../harness/drill";
import type { ServiceName } from "../harness/service";
import type { Target, TargetKind } from "../harness/target";
import { sleep } from "../harness/time";

/** How long a killed process stays down, as in kill9. */
const DOWN_MS = 1_000;
/** A delivery claimed by the killed parser is attempted again once its claim (30 s) lapses: this covers it and the backlog. */
const DELIVERED_WITHIN_MS = 120_000;

/** The ids of every message stored in the inboxes, through GET /v1/messages. */
async function storedIds(target: Target, inboxIds: string[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const inbox of inboxIds) {
    let cursor: string | null = null;
    do {
      const query: URLSearchParams = new URLSearchParams({ inbox, limit: "200", ...(cursor ? { cursor } : {}) });
      const page: Answer<{ data: Array<{ id: string }>; next_cursor: string | null }> = await read(target.apiUrl, target.apiKey, `/v1/messages?${query}`);
      if (page.status !== 200) throw new Error(`listing ${inbox}: ${page.status}`);
      for (const message of page.body.data) ids.add(message.id);
      cursor = page.body.next_cursor;
    } while (cursor);
  }
  return ids;
}

/**
 * kill -9 of the process delivering webhooks while mail streams in and every message raises
 * `message.received` to a receiver on loopback: events are written with their messages, so
 * every message stored, before, during or after the crash, reaches the receiver at least once
 * (a delivery cut mid-attempt is sent again, with the same webhook-id).
 */
async function killWhileDelivering(ctx: DrillContext, name: ServiceName): Promise<void> {
  const receiver = await startTestReceiver("127.0.0.2");
  try {
    await call(ctx.target.apiUrl, ctx.target.apiKey, "POST", "/v1/webhooks", { url: `${receiver.origin}/hook`, events: ["message.received"] });
    const inboxes = await ctx.inboxes(2, "hooked");
    const load = ctx.load(inboxes);
    await ctx.flowing(load, "the load began", 20);
    await ctx.ingest();
    const exit = await ctx.target.service(name).kill();
    ctx.check(exit.signal === "SIGKILL", `${name} ended with ${JSON.stringify(exit)} instead of SIGKILL`);
    await sleep(DOWN_MS);
    await ctx.target.service(name).start();
    await ctx.flowing(load, "the restart");
    await load.stop();
    await ctx.tally(load.messages);

    const stored = await storedIds(ctx.target, inboxes.map((inbox) => inbox.id));
    const delivered = () => new Set(receiver.received.map((request) => (JSON.parse(request.body) as { data: { id: string } }).data.id));
    const started = Date.now();
    let missing = [...stored].filter((id) => !delivered().has(id));
    while (missing.length > 0 && Date.now() - started < DELIVERED_WITHIN_MS) {
      await sleep(500);
      missing = missing.filter((id) => !delivered().has(id));
    }
    ctx.check(missing.length === 0, `${missing.length} of ${stored.size} stored message(s) never reached the webhook receiver (first: ${missing.slice(0, 3).join(", ")})`);
    const requests = receiver.received.length;
    ctx.note(`${stored.size} messages, ${requests} webhook requests (${requests - delivered().size} sent again after the crash), all delivered ${((Date.now() - started) / 1000).toFixed(1)} s after the count`);
  } finally {
    await receiver.stop();
  }
}

const cases = (target: TargetKind, name: ServiceName, quick: boolean): DrillCase => ({
  id: "webhooks",
  drill: `kill -9 ${name === "all" ? "(monolith)" : name} while delivering webhooks`,
  target,
  quick,
  run: (ctx) => killWhileDelivering(ctx, name),
});

export const webhookCases: DrillCase[] = [cases("monolith", "all", false), cases("embedded", "all", false), cases("fleet", "parser", true)];
