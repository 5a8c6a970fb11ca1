import type { Config } from "@mailstop/config";
import type { Metrics } from "@mailstop/metrics";

/** What the thread is started with. */
export interface ParserThreadData {
  config: Config;
}

/** The parser's metric events, counted by the process's own registry (the one /metrics serves). */
export const FORWARDED_METRICS = ["job", "messageVisible", "webhookDelivery"] as const satisfies readonly (keyof Metrics)[];
export type ForwardedMetric = (typeof FORWARDED_METRICS)[number];

/** Main thread → parser thread. */
export type ToParserThread = { type: "ready?"; id: number } | { type: "stop" };

/** Parser thread → main thread. */
export type FromParserThread =
  | { type: "started" }
  | { type: "start-failed"; message: string }
  | { type: "ready"; id: number; ready: boolean }
  /** One JSON log line, written to the process's log as it is. */
  | { type: "log"; line: string }
  | { type: "metric"; name: ForwardedMetric; args: unknown[] }
  | { type: "stopped" };
