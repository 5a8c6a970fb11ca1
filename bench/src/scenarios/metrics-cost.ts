import { call } from "../lib/api";
import type { MailstopTarget } from "../targets/mailstop";
import { type CostOptions, type CostResult, costProject, costScenario, measureCost } from "./cost";

/**
 * What the Prometheus metrics cost on the hot paths, measured in one run: each path on a pair of
 * split processes identical but for `MAILSTOP_METRICS` (on: every response is counted and its
 * duration observed in a histogram, every SMTP session, recipient and transaction counted, and
 * prom-client's default collectors run; off: the recorder that does nothing), read by one
 * project without limits. Rate limits stay at the bench's default (on, with an allowance never
 * reached) on both, as an installation runs them. The SMTP pair sends to an inbox of its own,
 * so the read and the wait find the same inbox in every round.
 */
export const METRICS_VARIANTS = ["without", "with"] as const;
export type MetricsVariant = (typeof METRICS_VARIANTS)[number];

export async function metricsCost(target: MailstopTarget, options: CostOptions): Promise<CostResult<MetricsVariant>> {
  const tag = `metrics.${Date.now().toString(36)}`;
  const project = await costProject(target, tag, false, 20);
  const sink = await call<{ address: string }>(target.url, project.apiKey, "POST", "/v1/inboxes", { tag: `${tag}-smtp` });
  const setup = async (env: Record<string, string>) => {
    const [api, waiter, edge] = await Promise.all([target.startSplit("api", env), target.startSplit("waiter", env), target.startEdge(env)]);
    return { api, waiter, edge: { smtpPort: edge.smtpPort, to: sink.address }, project };
  };
  // Started side by side: nothing is measured until all six answer.
  const [without, withMetrics] = await Promise.all([setup({ MAILSTOP_METRICS: "off" }), setup({})]);
  return measureCost(METRICS_VARIANTS, { without, with: withMetrics }, options);
}

export const metricsCostScenario = costScenario("metrics-cost", "metricsCost", metricsCost, {
  variants: METRICS_VARIANTS,
  without: { variant: "without", text: "metrics off", note: "MAILSTOP_METRICS=off, rate limits on" },
  with: { variant: "with", text: "with Prometheus metrics recorded" },
});
