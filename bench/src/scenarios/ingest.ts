import { randomBytes } from "node:crypto";
import { type MessageSize, SENDER, message } from "../lib/mail";
import { openPool } from "../lib/smtp-client";
import { sleep } from "../lib/stats";
import type { Target } from "../targets/target";

export interface IngestResult {
  sent: number;
  /** Messages per second from the first send until the last one was visible. */
  visiblePerSecond: number;
  /** Messages per second acknowledged with 250 while sending. */
  acceptedPerSecond: number;
  /** How long after the last 250 the last message became visible. */
  visibleLagMs: number;
  failed: number;
}

/**
 * Ingest: `concurrency` pooled connections send back to back for `durationMs`; the figure is
 * messages sent divided by the time until every one of them was visible (through the API where
 * the server has one), so a server that answers 250 and parses later is not flattered.
 */
export async function ingest(target: Target, size: MessageSize, concurrency: number, durationMs: number): Promise<IngestResult> {
  const destination = await target.destination(`ingest.${size}-c${concurrency}-${randomBytes(3).toString("hex")}`);
  const pool = await openPool(target.smtpPort, concurrency);
  let sent = 0;
  let failed = 0;
  let sequence = 0;
  const started = performance.now();
  await Promise.all(
    pool.map(async (client) => {
      while (performance.now() - started < durationMs) {
        const data = message(size, destination.address, `ingest ${size} #${++sequence}`);
        try {
          await client.send(SENDER, destination.address, data);
          sent += 1;
        } catch {
          failed += 1;
          if (failed > 100) throw new Error(`ingest into ${target.name}: more than 100 sends failed`);
        }
      }
    }),
  );
  const sendsEnded = performance.now();
  for (const client of pool) client.close();
  const deadline = sendsEnded + Math.max(30_000, durationMs * 10);
  let visible = 0;
  while ((visible = await destination.visible()) < sent) {
    if (performance.now() > deadline) throw new Error(`ingest into ${target.name}: only ${visible} of ${sent} visible after ${Math.round(deadline - started)} ms`);
    await sleep(10);
  }
  const allVisible = performance.now();
  return {
    sent,
    failed,
    visiblePerSecond: (sent * 1000) / (allVisible - started),
    acceptedPerSecond: (sent * 1000) / (sendsEnded - started),
    visibleLagMs: allVisible - sendsEnded,
  };
}
