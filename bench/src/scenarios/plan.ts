/** How much of each scenario a run does: the full run stays within a few minutes. */
export const PLANS = {
  full: {
    ingestMs: 3000,
    concurrencies: [1, 10, 50],
    connectSends: 200,
    connectMaxMs: 10_000,
    arrival: { lanes: 5, perLane: 100, maxMs: 12_000 },
    // Shorter: above what mailstop absorbs, every second of background is seconds of queue to drain.
    arrivalBackgroundMs: 8000,
    backgroundPerSecond: 500,
    heldWaits: { waits: 10_000, inboxes: 100 },
    heldStreams: { streams: 10_000, inboxes: 100, arrivals: 10 },
    readsS: 5,
    limitsCost: { rate: 500, durationS: 5, warmUpS: 2, rounds: 3 },
    metricsCost: { rate: 500, smtpRate: 50, durationS: 5, warmUpS: 2, rounds: 3 },
    checksCost: { concurrency: 10, durationMs: 3000, warmUpMs: 1000, rounds: 3, inProcessMs: 1500 },
    // Idle CPU over 60 s from 30 s after start (issue 34's target): the first 30 s are start-up's tail.
    laptop: { idleS: 30, cpuS: 60, helpRuns: 5, messages: 10_000 },
  },
  quick: {
    ingestMs: 300,
    concurrencies: [1, 10, 50],
    connectSends: 10,
    connectMaxMs: 2000,
    arrival: { lanes: 2, perLane: 3, maxMs: 5000 },
    arrivalBackgroundMs: 3000,
    backgroundPerSecond: 100,
    heldWaits: { waits: 200, inboxes: 10 },
    heldStreams: { streams: 200, inboxes: 10, arrivals: 2 },
    readsS: 1,
    limitsCost: { rate: 100, durationS: 0.5, warmUpS: 0.5, rounds: 1 },
    metricsCost: { rate: 100, smtpRate: 20, durationS: 0.5, warmUpS: 0.5, rounds: 1 },
    checksCost: { concurrency: 10, durationMs: 500, warmUpMs: 200, rounds: 1, inProcessMs: 200 },
    laptop: { idleS: 3, cpuS: 3, helpRuns: 2, messages: 200 },
  },
} as const;

export type Mode = keyof typeof PLANS;
export type Plan = (typeof PLANS)[Mode];
