import { randomBytes } from "node:crypto";
import { type MessageSize, SENDER, message } from "../lib/mail";
import { withCpuOf } from "../lib/proc";
import { openPool } from "../lib/smtp-client";
import { sleep } from "../lib/stats";
import type { Row } from "../report";
import type { Target } from "../targets/target";
import type { Scenario } from "./scenario";

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

/**
 * Ingest of both sizes at each concurrency on every column, in the columns' order: a row each
 * (visible msg/s), with the directory store against Postfix → Maildir at c=50 and the embedded
 * column's ratio to it.
 */
export const ingestScenario: Scenario = {
  name: "ingest",
  async run({ plan, targets: { byName, order, mailstop }, rows, details }) {
    for (const size of ["2kb", "50kb"] as const) {
      for (const concurrency of plan.concurrencies) {
        const values: Row["values"] = {};
        const accepted: string[] = [];
        let s3rverShare = "";
        for (const name of order) {
          // On s3rver, whose CPU the figure largely is: both processes' CPU over the run (threads included).
          const pids = name === "mailstop" && mailstop.s3Pid !== null ? [mailstop.pid, mailstop.s3Pid] : [];
          const { result, cpuSeconds } = await withCpuOf(pids, () => ingest(byName[name], size, concurrency, plan.ingestMs));
          details[`ingest.${size}.c${concurrency}.${name}`] = { ...result, ...(pids.length > 0 ? { cpu_seconds: { mailstop: cpuSeconds[0], s3rver: cpuSeconds[1] } } : {}) };
          if (pids.length > 0) s3rverShare = `; CPU s at c=${concurrency} on the s3 column: mailstop ${cpuSeconds[0]!.toFixed(1)}, s3rver ${cpuSeconds[1]!.toFixed(1)} (${((100 * cpuSeconds[1]!) / (cpuSeconds[0]! + cpuSeconds[1]!)).toFixed(0)}% of the two)`;
          values[name] = result.visiblePerSecond;
          accepted.push(`${name} ${result.acceptedPerSecond.toFixed(0)}`);
        }
        const row: Row = {
          scenario: `ingest ${size === "2kb" ? "2 KB" : "50 KB"} c=${concurrency}, visible`,
          unit: "msg/s",
          values,
          note: `250s/s: ${accepted.join(", ")}${s3rverShare}`,
        };
        // The real-engine monolith on the directory store against Postfix → Maildir, which also keeps files.
        const dir = values["mailstop-dir"];
        const postfixRate = values.postfix;
        if (concurrency === 50 && dir !== undefined && dir !== null) {
          row.target =
            postfixRate === undefined || postfixRate === null
              ? { text: "directory store (Postfix not run)", pass: false }
              : { text: "directory store ≥ Postfix → Maildir", pass: dir >= postfixRate };
        }
        rows.push(row);
        const laptop = values["mailstop-embedded"];
        if (size === "2kb" && concurrency === 50 && laptop !== undefined && laptop !== null && dir !== undefined && dir !== null) {
          rows.push({
            scenario: "  embedded (`pnpm start`) / real-engine monolith (directory store), 2 KB c=50",
            unit: "ratio",
            values: { "mailstop-embedded": laptop / dir },
            target: { text: "≥ 0.5", pass: laptop / dir >= 0.5 },
          });
        }
      }
    }
  },
};
