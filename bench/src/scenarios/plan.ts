/** A setting's value in each mode: a class, so an array-valued setting is never taken for a pair. */
class Both<F, Q> {
  constructor(
    readonly full: F,
    readonly quick: Q,
  ) {}
}

function both<const F, const Q>(full: F, quick: Q): Both<F, Q> {
  return new Both(full, quick);
}

/** `table` as one mode sees it: each `both` replaced by that mode's value. */
type Side<T, M extends "full" | "quick"> =
  T extends Both<infer F, infer Q> ? (M extends "full" ? F : Q) : T extends readonly unknown[] ? T : T extends object ? { readonly [K in keyof T]: Side<T[K], M> } : T;

function side<T, M extends "full" | "quick">(table: T, mode: M): Side<T, M> {
  if (table instanceof Both) return table[mode];
  if (typeof table !== "object" || table === null || Array.isArray(table)) return table as Side<T, M>;
  return Object.fromEntries(Object.entries(table).map(([key, value]) => [key, side(value, mode)])) as Side<T, M>;
}

/**
 * How much of each scenario a run does: the full run stays within a few minutes. A setting
 * written `both(full, quick)` differs between the modes, any other is the same in both.
 */
const TABLE = {
  ingestMs: both(3000, 300),
  concurrencies: [1, 10, 50],
  connectSends: both(200, 10),
  connectMaxMs: both(10_000, 2000),
  arrival: { lanes: both(5, 2), perLane: both(100, 3), maxMs: both(12_000, 5000) },
  // Shorter: above what mailstop absorbs, every second of background is seconds of queue to drain.
  arrivalBackgroundMs: both(8000, 3000),
  backgroundPerSecond: both(500, 100),
  heldWaits: { waits: both(10_000, 200), inboxes: both(100, 10) },
  heldStreams: { streams: both(10_000, 200), inboxes: both(100, 10), arrivals: both(10, 2) },
  readsS: both(5, 1),
  limitsCost: { rate: both(500, 100), durationS: both(5, 0.5), warmUpS: both(2, 0.5), rounds: both(3, 1) },
  metricsCost: { rate: both(500, 100), smtpRate: both(50, 20), durationS: both(5, 0.5), warmUpS: both(2, 0.5), rounds: both(3, 1) },
  checksCost: { concurrency: 10, durationMs: both(3000, 500), warmUpMs: both(1000, 200), rounds: both(3, 1), inProcessMs: both(1500, 200) },
  // Idle CPU over 60 s from 30 s after start (issue 34's target): the first 30 s are start-up's tail.
  laptop: { idleS: both(30, 3), cpuS: both(60, 3), helpRuns: both(5, 2), messages: both(10_000, 200) },
} as const;

export const PLANS = { full: side(TABLE, "full"), quick: side(TABLE, "quick") } as const;

export type Mode = keyof typeof PLANS;
export type Plan = (typeof PLANS)[Mode];
