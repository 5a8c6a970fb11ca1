import type { MailstopTarget, ServerProcess } from "../targets/mailstop";
import { type CostOptions, type CostResult, type CostSetup, costProject, costScenario, measureCost } from "./cost";

/**
 * What the governance checks cost on the hot paths, measured in one run: each path on a pair of
 * split processes identical but for `MAILSTOP_RATE_LIMITS` (on: every read takes a token from
 * Redis; off: nothing is counted), each read by a project without limits (the key's query reads
 * nothing more) and by a project whose organisation has organisation limits on (the key's query
 * sums the organisation's month and bytes: the dearest allowance check there is). No limit is
 * ever reached: the figures are the cost of checking, not of refusing.
 */
export const VARIANTS = ["without", "rate limiter", "metering", "both"] as const;
export type Variant = (typeof VARIANTS)[number];

export type LimitsCostResult = CostResult<Variant>;

export async function limitsCost(target: MailstopTarget, options: CostOptions): Promise<LimitsCostResult> {
  const run = Date.now().toString(36);
  const [plain, limited] = [await costProject(target, `cost.${run}-plain`, false, 20), await costProject(target, `cost.${run}-limited`, true, 20)];
  // Started side by side: nothing is measured until all four answer.
  const off = { MAILSTOP_RATE_LIMITS: "off" };
  const [apiOn, apiOff, waiterOn, waiterOff] = await Promise.all([target.startSplit("api"), target.startSplit("api", off), target.startSplit("waiter"), target.startSplit("waiter", off)]);
  const servers: Record<"api" | "waiter", Record<"on" | "off", ServerProcess>> = { api: { on: apiOn, off: apiOff }, waiter: { on: waiterOn, off: waiterOff } };
  const setup = (limiter: "on" | "off", project: CostSetup["project"]): CostSetup => ({ api: servers.api[limiter], waiter: servers.waiter[limiter], project });
  return measureCost(
    VARIANTS,
    { without: setup("off", plain), "rate limiter": setup("on", plain), metering: setup("off", limited), both: setup("on", limited) },
    options,
  );
}

export const limitsCostScenario = costScenario("limits-cost", "limitsCost", limitsCost, {
  variants: VARIANTS,
  without: { variant: "without", text: "no rate limiter, no limits set", note: "MAILSTOP_RATE_LIMITS=off, a project without limits" },
  with: { variant: "both", text: "with the rate limiter and organisation limits checked" },
  detail: (figures) =>
    `rate limiter only ${figures["rate limiter"].mean.toFixed(2)} ms (p99 ${figures["rate limiter"].p99.toFixed(1)}), ` +
    `limits only ${figures.metering.mean.toFixed(2)} ms (p99 ${figures.metering.p99.toFixed(1)})`,
});
