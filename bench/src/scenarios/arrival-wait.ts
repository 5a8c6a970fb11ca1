import { randomBytes } from "node:crypto";
import { Agent } from "node:http";
import { postJson } from "../lib/http";
import { type MessageSize, SENDER, message } from "../lib/mail";
import { SmtpClient, openPool } from "../lib/smtp-client";
import { median, p99, sleep, until } from "../lib/stats";
import type { ApiTarget } from "../targets/mailstop";

export interface ArrivalWaitResult {
  samples: number;
  /** Waits that never saw their message (were not yet blocked when it arrived). */
  missed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The background ingest actually achieved while measuring (0 when idle). */
  backgroundPerSecond: number;
}

interface WaitBody {
  status: "matched" | "timeout";
  message?: { subject: string };
}

/** A wait that has not seen its message by then counts as missed. */
const WAIT_TIMEOUT_MS = 5000;

/** How long a lane lets its wait block before it sends: the wait must be waiting, not reading. */
const BLOCK_FIRST_MS = 30;

/**
 * Arrival → wait: a wait with no match (it takes the next arrival) is blocked on the inbox
 * first, then one message is sent; the figure is the time from that message's final 250 to the
 * wait's whole response. `lanes` inboxes run side by side, each one wait at a time. A wait that
 * was not blocked in time misses its message and times out: it is counted, never timed.
 * With `backgroundPerSecond`, other connections keep a steady ingest into another inbox.
 */
export async function arrivalToWait(
  target: ApiTarget,
  options: { lanes: number; perLane: number; backgroundPerSecond: number; maxMs: number; size?: MessageSize },
): Promise<ArrivalWaitResult> {
  const size = options.size ?? "2kb";
  const run = randomBytes(3).toString("hex");
  const inboxes = await Promise.all(Array.from({ length: options.lanes }, (_, i) => target.createInbox(`wait.${run}-lane${i}`)));
  const background = options.backgroundPerSecond > 0 ? await startBackground(target, `wait.${run}-background`, options.backgroundPerSecond, size) : null;
  const latencies: number[] = [];
  let missed = 0;
  let achieved = 0;
  let started = performance.now();
  try {
    if (background) await sleep(500);
    started = performance.now();
    await Promise.all(
      inboxes.map(async (inbox) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const smtp = await SmtpClient.connect(target.smtpPort);
        try {
          // Bounded in time: a server that cannot keep up with the background would otherwise
          // make every wait run to its timeout.
          for (let i = 0; i < options.perLane && performance.now() - started < options.maxMs; i++) {
            const subject = `arrival ${run} ${inbox.id} #${i}`;
            const wait = postJson<WaitBody>(agent, `${target.url}/v1/messages/wait`, target.apiKey, { inbox: inbox.address, timeout_ms: WAIT_TIMEOUT_MS });
            await sleep(BLOCK_FIRST_MS);
            const { at: accepted } = await smtp.send(SENDER, inbox.address, message(size, inbox.address, subject));
            const response = await wait;
            if (response.status !== 200) throw new Error(`wait answered ${response.status}: ${JSON.stringify(response.body)}`);
            if (response.body.status === "matched" && response.body.message?.subject === subject) latencies.push(response.at - accepted);
            else missed += 1;
          }
        } finally {
          smtp.close();
          agent.destroy();
        }
      }),
    );
  } finally {
    achieved = (await background?.stop()) ?? 0;
  }
  return { samples: latencies.length, missed, p50Ms: median(latencies), p99Ms: p99(latencies), maxMs: Math.max(...latencies), backgroundPerSecond: achieved };
}

/** A steady ingest of `perSecond` messages into its own inbox, on 10 pooled connections. */
async function startBackground(target: ApiTarget, tag: string, perSecond: number, size: MessageSize): Promise<{ stop(): Promise<number> }> {
  const inbox = await target.destination(tag);
  const connections = 10;
  const pool = await openPool(target.smtpPort, connections);
  let running = true;
  let sent = 0;
  const started = performance.now();
  const lanes = pool.map(async (client, lane) => {
    // Each connection sends on its own schedule, so a slow 250 delays only its own lane.
    const interval = (1000 * connections) / perSecond;
    let next = performance.now() + (lane * interval) / connections;
    while (running) {
      const delay = next - performance.now();
      if (delay > 0) await sleep(delay);
      next += interval;
      await client.send(SENDER, inbox.address, message(size, inbox.address, `background #${sent}`)).then(() => (sent += 1));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(lanes);
      for (const client of pool) client.close();
      const rate = (sent * 1000) / (performance.now() - started);
      // What was accepted but not parsed yet would slow the next scenario: wait it out.
      await until(async () => (await inbox.visible()) >= sent, `${sent} background messages visible`, 120_000, 200);
      return rate;
    },
  };
}
