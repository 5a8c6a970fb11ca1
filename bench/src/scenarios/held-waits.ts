import { randomBytes } from "node:crypto";
import { postJson, unpooledAgent } from "../lib/http";
import { SENDER, message } from "../lib/mail";
import { rssOf } from "../lib/proc";
import { openPool } from "../lib/smtp-client";
import { sleep, until } from "../lib/stats";
import type { MailstopTarget } from "../targets/mailstop";

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
export async function heldWaits(target: MailstopTarget, options: { waits: number; inboxes: number }): Promise<HeldWaitsResult> {
  const run = randomBytes(3).toString("hex");
  const inboxes = await Promise.all(Array.from({ length: options.inboxes }, (_, i) => target.createInbox(`held.${run}-${i}`)));
  const slotsKey = `${target.redisPrefix}:wait-slots:${target.projectId}`;
  const slotsBefore = await target.redis.zcard(slotsKey);
  const rssIdleBytes = rssOf(target.pid);
  const agent = unpooledAgent();
  const responses: Array<Promise<{ status: number; body: { status: string }; at: number }>> = [];
  // In batches: 10,000 connects at once would overflow the listen backlog and measure SYN retries.
  for (let i = 0; i < options.waits; i++) {
    const inbox = inboxes[i % inboxes.length]!;
    responses.push(postJson(agent, `${target.url}/v1/messages/wait`, target.apiKey, { inbox: inbox.address, timeout_ms: 120_000 }));
    if (i % 250 === 249) await sleep(25);
  }
  // Every wait holds a concurrency slot from before it subscribes until it ends.
  await until(async () => (await target.redis.zcard(slotsKey)) - slotsBefore >= options.waits, `${options.waits} waits held`, 120_000, 100);
  await sleep(1000);
  await target.probe(true);
  await sleep(2000);
  const probe = await target.probe();
  const rssHeldBytes = rssOf(target.pid);

  const pool = await openPool(target.smtpPort, 10);
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
}
