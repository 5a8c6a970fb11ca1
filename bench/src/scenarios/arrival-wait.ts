import { randomBytes } from "node:crypto";
import { Agent } from "node:http";
import { postJson } from "../lib/http";
import { type MessageSize, SENDER, message } from "../lib/mail";
import { SmtpClient, openPool } from "../lib/smtp-client";
import { median, p99, sleep, until } from "../lib/stats";
import type { ApiTarget } from "../targets/mailstop";
import type { Scenario } from "./scenario";

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

/** The mailstop columns arrival → wait runs on: the monolith on s3rver first (the targets are its). */
const COLUMNS = ["mailstop", "mailstop-dir", "mailstop-embedded", "mailstop-fleet"] as const;

/** Arrival → wait idle, then under background ingest, on every mailstop column the run has. */
export const arrivalWaitScenario: Scenario = {
  name: "arrival-wait",
  async run({ plan, targets: { byName, order }, rows, details }) {
    const columns = COLUMNS.filter((name) => name === "mailstop" || order.includes(name));
    for (const when of ["idle", "background"] as const) {
      const options = when === "idle" ? { ...plan.arrival, backgroundPerSecond: 0 } : { ...plan.arrival, maxMs: plan.arrivalBackgroundMs, backgroundPerSecond: plan.backgroundPerSecond };
      const results: Partial<Record<(typeof columns)[number], ArrivalWaitResult>> = {};
      for (const name of columns) results[name] = await arrivalToWait(byName[name] as ApiTarget, options);
      for (const [name, result] of Object.entries(results)) details[`arrival-wait.${when}${name === "mailstop" ? "" : `.${name}`}`] = result;
      const result = results.mailstop!;
      const describe = (name: string, each: ArrivalWaitResult) =>
        `${name}: ${each.samples} sends, ${each.missed} missed, max ${each.maxMs.toFixed(1)} ms${when === "background" ? `, background ${each.backgroundPerSecond.toFixed(0)} msg/s` : ""}`;
      const note = Object.entries(results).map(([name, each]) => describe(name, each!)).join("; ");
      const label = when === "idle" ? "idle" : `under ${plan.backgroundPerSecond} msg/s ingest`;
      const column = (pick: (each: ArrivalWaitResult) => number) => Object.fromEntries(Object.entries(results).map(([name, each]) => [name, pick(each!)]));
      rows.push({ scenario: `arrival → wait p50, ${label}`, unit: "ms", values: column((each) => each.p50Ms), note, target: { text: "≤ 5 ms", pass: result.p50Ms <= 5 } });
      const limit = when === "idle" ? 20 : 50;
      rows.push({ scenario: `arrival → wait p99, ${label}`, unit: "ms", values: column((each) => each.p99Ms), target: { text: `≤ ${limit} ms`, pass: result.p99Ms <= limit && result.missed === 0 } });
      const laptop = results["mailstop-embedded"];
      if (when === "idle" && laptop !== undefined) {
        rows.push({ scenario: "  embedded (`pnpm start`): arrival → wait p50, idle", unit: "ms", values: { "mailstop-embedded": laptop.p50Ms }, target: { text: "≤ 5 ms", pass: laptop.p50Ms <= 5 && laptop.missed === 0 } });
      }
    }
  },
};
