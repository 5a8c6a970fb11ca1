// autocannon ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as (options: Record<string, unknown>) => Promise<AutocannonResult>;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface ReadResult {
  requestsPerSecond: number;
  /** Mean latency: finer than the percentiles, which autocannon gives in whole milliseconds. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  failed: number;
}

/**
 * One read route (or a POST with a JSON body) under autocannon: `rate` requests per second over `connections` keep-alive
 * connections (or as fast as it answers without a rate) for `durationS` seconds. Latency is
 * measured from when each request was due, so a server that falls behind the rate is not
 * excused (autocannon corrects for coordinated omission when a rate is set).
 */
export async function readLoad(
  url: string,
  headers: Record<string, string>,
  options: { rate?: number; connections: number; durationS: number; method?: "GET" | "POST"; body?: unknown },
): Promise<ReadResult> {
  const result = await autocannon({
    url,
    headers: options.body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(options.method ? { method: options.method } : {}),
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    connections: options.connections,
    duration: options.durationS,
    ...(options.rate ? { overallRate: options.rate } : {}),
  });
  return {
    requestsPerSecond: result.requests.total / options.durationS,
    meanMs: result.latency.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}
