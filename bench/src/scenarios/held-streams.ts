import { randomBytes } from "node:crypto";
import { type ClientRequest, request } from "node:http";
import { unpooledAgent } from "../lib/http";
import { SENDER, message } from "../lib/mail";
import { rssOf } from "../lib/proc";
import { SmtpClient } from "../lib/smtp-client";
import { median, sleep, until } from "../lib/stats";
import type { MailstopTarget, ServerProcess } from "../targets/mailstop";
import { heldScenario, mbBefore } from "./held";

export interface HeldStreamsResult {
  streams: number;
  inboxes: number;
  rssIdleBytes: number;
  rssHeldBytes: number;
  openMs: number;
  /** From a message's 250 to its frame on each stream of its inbox. */
  deliveryP50Ms: number;
  deliveryMaxMs: number;
  deliveries: number;
}

const BATCH = 250;

interface Stream {
  inbox: number;
  opened: boolean;
  /** Called with the arrival time of each `message` frame. */
  onMessage: ((at: number) => void) | null;
  request: ClientRequest;
}

/**
 * Held streams: `streams` open event streams (GET /stream/v1/inboxes/{inbox}/events) over
 * `inboxes` inboxes. RSS of the server once all are open (each has had its `open` frame); then
 * `arrivals` messages, one at a time to different inboxes, each timed from its 250 to its
 * `message` frame on every stream of its inbox.
 */
export async function heldStreams(target: MailstopTarget, options: { streams: number; inboxes: number; arrivals: number; via?: ServerProcess }): Promise<HeldStreamsResult> {
  // The process that holds them: the monolith, or a split waiter beside it.
  const via = options.via ?? target;
  const run = randomBytes(3).toString("hex");
  const inboxes = await Promise.all(Array.from({ length: options.inboxes }, (_, i) => target.createInbox(`streams.${run}-${i}`)));
  await via.collectGarbage();
  const rssIdleBytes = rssOf(via.pid);
  await via.heapSnapshot("held-streams-idle");
  const agent = unpooledAgent();
  const streams: Stream[] = [];
  const started = performance.now();
  for (let i = 0; i < options.streams; i++) {
    const inbox = i % inboxes.length;
    const stream: Stream = { inbox, opened: false, onMessage: null, request: null as unknown as ClientRequest };
    stream.request = request(`${via.url}/stream/v1/inboxes/${inboxes[inbox]!.id}/events`, { agent, headers: { authorization: `Bearer ${target.apiKey}` } }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        const at = performance.now();
        if (chunk.includes("event: open")) stream.opened = true;
        if (chunk.includes("event: message")) stream.onMessage?.(at);
      });
      res.on("error", () => undefined);
    });
    stream.request.on("error", () => undefined);
    stream.request.end();
    streams.push(stream);
    // In batches, each once the server has opened all but the last (see held-waits.ts).
    if (i % BATCH === BATCH - 1) {
      const opened = i + 1;
      await until(async () => streams.filter((s) => s.opened).length >= opened - BATCH, `${opened - BATCH} streams open`, 60_000, 5);
    }
  }
  await until(async () => streams.every((s) => s.opened), `${options.streams} streams open`, 120_000, 100);
  const openMs = performance.now() - started;
  await sleep(1000);
  await via.collectGarbage();
  const rssHeldBytes = rssOf(via.pid);
  await via.heapSnapshot("held-streams-held");

  const smtp = await SmtpClient.connect(target.smtpPort);
  const delays: number[] = [];
  for (let k = 0; k < options.arrivals; k++) {
    const inbox = k % inboxes.length;
    const mine = streams.filter((s) => s.inbox === inbox);
    let accepted = Number.NaN;
    const frames: number[] = [];
    const all = new Promise<void>((resolve) => {
      for (const stream of mine) {
        stream.onMessage = (at) => {
          stream.onMessage = null;
          frames.push(at);
          if (frames.length === mine.length) resolve();
        };
      }
    });
    ({ at: accepted } = await smtp.send(SENDER, inboxes[inbox]!.address, message("2kb", inboxes[inbox]!.address, `stream ${run} #${k}`)));
    await Promise.race([all, sleep(10_000)]);
    delays.push(...frames.map((at) => at - accepted));
  }
  smtp.close();
  for (const stream of streams) stream.request.destroy();
  agent.destroy();
  return {
    streams: options.streams,
    inboxes: options.inboxes,
    rssIdleBytes,
    rssHeldBytes,
    openMs,
    deliveryP50Ms: median(delays),
    deliveryMaxMs: Math.max(...delays),
    deliveries: delays.length,
  };
}

/** Open event streams on the monolith (RSS, 250 → frame), then the same on a split waiter process. */
export const heldStreamsScenario = heldScenario("held-streams", {
  measure: (target, plan, via) => heldStreams(target, { ...plan.heldStreams, via }),
  what: (result) => `${result.streams.toLocaleString("en")} open streams`,
  ceilingMb: 250,
  rssNote: (result) => `${mbBefore(result)}; all open in ${result.openMs.toFixed(0)} ms`,
  more: (result, what) => [
    {
      scenario: `${what}: 250 → frame p50`,
      unit: "ms",
      values: { mailstop: result.deliveryP50Ms },
      note: `max ${result.deliveryMaxMs.toFixed(1)} ms over ${result.deliveries} frames (${result.streams / result.inboxes} streams per inbox)`,
    },
  ],
  split: { what: "RSS", note: (split) => `${mbBefore(split)}; 250 → frame p50 ${split.deliveryP50Ms.toFixed(1)} ms, max ${split.deliveryMaxMs.toFixed(1)} ms` },
});
