import { randomBytes } from "node:crypto";
import { postJson, unpooledAgent } from "../lib/http";
import { SENDER, message } from "../lib/mail";
import { rssOf } from "../lib/proc";
import { openPool } from "../lib/smtp-client";
import { sleep, until } from "../lib/stats";
import type { MailstopTarget, ServerProcess } from "../targets/mailstop";
import { heldScenario, mbBefore } from "./held";

/** Waits opened before checking that the server has caught up. */
const BATCH = 250;

export interface HeldWaitsResult {
  waits: number;
  inboxes: number;
  rssIdleBytes: number;
  rssHeldBytes: number;
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** From the first send to the last wait's response. */
  wakeAllMs: number;
  /** From the last message's 250 to the last wait's response. */
  wakeAfterLast250Ms: number;
  matched: number;
}

/**
 * Held waits: `waits` blocking waits spread over `inboxes` inboxes (no match: each takes its
 * inbox's next arrival), all held by the one server process. Its RSS and event-loop delay are
 * read while they are held; then one message per inbox wakes them all.
 */
export async function heldWaits(target: MailstopTarget, options: { waits: number; inboxes: number; via?: ServerProcess }): Promise<HeldWaitsResult> {
  // The process that holds them: the monolith, or a split waiter beside it.
  const via = options.via ?? target;
  const run = randomBytes(3).toString("hex");
  const inboxes = await Promise.all(Array.from({ length: options.inboxes }, (_, i) => target.createInbox(`held.${run}-${i}`)));
  const slotsKey = `${target.redisPrefix}:wait-slots:${target.projectId}`;
  const slotsBefore = await target.redis.zcard(slotsKey);
  await via.collectGarbage();
  const rssIdleBytes = rssOf(via.pid);
  await via.heapSnapshot("held-waits-idle");
  const agent = unpooledAgent();
  // Settled at once, so a wait that fails (a reset connection) is counted, never an unhandled rejection.
  const responses: Array<Promise<{ status: number; body: { status: string }; at: number }>> = [];
  const failures: string[] = [];
  const held = async () => (await target.redis.zcard(slotsKey)) - slotsBefore;
  // In batches, each once the server has taken in all but the last: 10,000 connects at once
  // overflow the listen backlog (Node's is 511) and come back as resets, not as waits.
  for (let i = 0; i < options.waits; i++) {
    if (i > 0 && i % BATCH === 0) {
      const opened = i;
      await until(async () => failures.length > 0 || (await held()) >= opened - BATCH, `${opened - BATCH} waits held`, 60_000, 5);
    }
    const inbox = inboxes[i % inboxes.length]!;
    responses.push(
      postJson<{ status: string }>(agent, `${via.url}/v1/messages/wait`, target.apiKey, { inbox: inbox.address, timeout_ms: 120_000 }).catch((error: Error) => {
        failures.push(error.message);
        return { status: 0, body: { status: "failed" }, at: Number.NaN };
      }),
    );
  }
  // Every wait holds a concurrency slot from before it subscribes until it ends.
  await until(
    async () => {
      if (failures.length > 0) throw new Error(`${failures.length} waits failed while opening, first: ${failures[0]}`);
      return (await held()) >= options.waits;
    },
    `${options.waits} waits held`,
    120_000,
    100,
  );
  await sleep(1000);
  await via.probe(true);
  await sleep(2000);
  const probe = await via.probe();
  await via.collectGarbage();
  const rssHeldBytes = rssOf(via.pid);
  await via.heapSnapshot("held-waits-held");

  const pool = await openPool(target.smtpPort, 10);
  return via.profilePhase("held-waits-wake", async () => {
  const firstSend = performance.now();
  let last250 = 0;
  let next = 0;
  await Promise.all(
    pool.map(async (client) => {
      for (let i = next++; i < inboxes.length; i = next++) {
        const inbox = inboxes[i]!;
        const { at } = await client.send(SENDER, inbox.address, message("2kb", inbox.address, `wake ${run} ${i}`));
        last250 = Math.max(last250, at);
      }
    }),
  );
  for (const client of pool) client.close();
  const settled = await Promise.all(responses);
  const allWoken = Math.max(...settled.map((r) => r.at));
  if (failures.length > 0) throw new Error(`${failures.length} waits failed, first: ${failures[0]}`);
  agent.destroy();
  return {
    waits: options.waits,
    inboxes: options.inboxes,
    rssIdleBytes,
    rssHeldBytes,
    eventLoopDelayP99Ms: probe.event_loop_delay_ms.p99,
    eventLoopDelayMaxMs: probe.event_loop_delay_ms.max,
    wakeAllMs: allWoken - firstSend,
    wakeAfterLast250Ms: allWoken - last250,
    matched: settled.filter((r) => r.status === 200 && r.body.status === "matched").length,
  };
  });
}

/** Held waits on the monolith (RSS, wake all, event-loop delay), then the same on a split waiter process. */
export const heldWaitsScenario = heldScenario("held-waits", {
  measure: (target, plan, via) => heldWaits(target, { ...plan.heldWaits, via }),
  what: (result) => `${result.waits.toLocaleString("en")} held waits`,
  ceilingMb: 200,
  rssNote: (result) => `${mbBefore(result)} the waits; ${result.inboxes} inboxes`,
  more: (result, what) => [
    {
      scenario: `${what}: wake all`,
      unit: "ms",
      values: { mailstop: result.wakeAllMs },
      note: `first send → last response; ${result.wakeAfterLast250Ms.toFixed(0)} ms after the last 250; ${result.matched} matched`,
      target: { text: "≤ 2,000 ms", pass: result.wakeAllMs <= 2000 && result.matched === result.waits },
    },
    { scenario: `${what}: event-loop delay p99`, unit: "ms", values: { mailstop: result.eventLoopDelayP99Ms }, note: `max ${result.eventLoopDelayMaxMs} ms while held` },
  ],
  split: {
    what: "RSS / wake all",
    note: (split) => `${mbBefore(split)} the waits; all woken in ${split.wakeAllMs.toFixed(0)} ms (${split.matched} matched); event-loop delay p99 ${split.eventLoopDelayP99Ms} ms`,
  },
});
