import { call } from "../lib/api";
import { SENDER, message } from "../lib/mail";
import { openPool } from "../lib/smtp-client";
import { until } from "../lib/stats";
import type { MailstopTarget, ServerProcess } from "../targets/mailstop";
import { type ReadResult, readLoad } from "./reads";

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

export interface LimitsCostResult {
  rate: number;
  /** `GET /v1/messages/{id}` on a split api: one result per round. */
  read: Record<Variant, ReadResult[]>;
  /** `POST /v1/messages/wait` whose match is stored (it answers at once) on a split waiter. */
  wait: Record<Variant, ReadResult[]>;
}

interface Project {
  apiKey: string;
  inboxId: string;
  messageId: string;
  subject: string;
}

const HIGH = 1_000_000_000;

/** A project of its own organisation with `stored` messages in one inbox; `limited` turns every allowance check on. */
async function projectWith(target: MailstopTarget, tag: string, limited: boolean, stored: number): Promise<Project> {
  const bootstrap = await target.admin<{ organisation_id: string; project_id: string; project_key: string; api_key: string }>("POST", "/admin/v1/bootstrap", {});
  await target.admin("PATCH", `/admin/v1/projects/${bootstrap.project_id}`, { limits: { max_concurrent_waits: 10_000, ...(limited ? { monthly_messages: HIGH } : {}) } });
  if (limited) {
    await target.admin("PATCH", `/admin/v1/organisations/${bootstrap.organisation_id}`, { organisation_limits: true, limits: { monthly_messages: HIGH, storage_bytes: HIGH * 1000 } });
  }
  const inbox = await call<{ id: string; address: string }>(target.url, bootstrap.api_key, "POST", "/v1/inboxes", { tag });
  const [client] = await openPool(target.smtpPort, 1);
  for (let i = 0; i < stored; i++) await client!.send(SENDER, inbox.address, message("2kb", inbox.address, `${tag} #${i}`));
  client!.close();
  let ids: string[] = [];
  await until(
    async () => (ids = (await call<{ data: Array<{ id: string }> }>(target.url, bootstrap.api_key, "GET", `/v1/messages?inbox=${inbox.id}&limit=200`)).data.map((m) => m.id)).length >= stored,
    `${stored} messages in ${tag}`,
    30_000,
  );
  const newest = await call<{ id: string; subject: string }>(target.url, bootstrap.api_key, "GET", `/v1/messages/${ids[0]}`);
  return { apiKey: bootstrap.api_key, inboxId: inbox.id, messageId: newest.id, subject: newest.subject };
}

export async function limitsCost(target: MailstopTarget, options: { rate: number; durationS: number; warmUpS: number; rounds: number }): Promise<LimitsCostResult> {
  const run = Date.now().toString(36);
  const [plain, limited] = [await projectWith(target, `cost.${run}-plain`, false, 20), await projectWith(target, `cost.${run}-limited`, true, 20)];
  const servers: Record<"api" | "waiter", Record<"on" | "off", ServerProcess>> = {
    api: { on: await target.startSplit("api"), off: await target.startSplit("api", { MAILSTOP_RATE_LIMITS: "off" }) },
    waiter: { on: await target.startSplit("waiter"), off: await target.startSplit("waiter", { MAILSTOP_RATE_LIMITS: "off" }) },
  };
  const setups: Record<Variant, { limiter: "on" | "off"; project: Project }> = {
    without: { limiter: "off", project: plain },
    "rate limiter": { limiter: "on", project: plain },
    metering: { limiter: "off", project: limited },
    both: { limiter: "on", project: limited },
  };
  const empty = () => Object.fromEntries(VARIANTS.map((v) => [v, [] as ReadResult[]])) as Record<Variant, ReadResult[]>;
  const result: LimitsCostResult = { rate: options.rate, read: empty(), wait: empty() };
  const load = { rate: options.rate, connections: 20, durationS: options.durationS };
  const measure = async (variant: Variant, durationS: number) => {
    const { limiter, project } = setups[variant];
    const auth = { authorization: `Bearer ${project.apiKey}` };
    const wait = { inbox: project.inboxId, match: { subject_contains: project.subject }, timeout_ms: 5000 };
    return {
      read: await readLoad(`${servers.api[limiter].url}/v1/messages/${project.messageId}`, auth, { ...load, durationS }),
      wait: await readLoad(`${servers.waiter[limiter].url}/v1/messages/wait`, auth, { ...load, durationS, method: "POST", body: wait }),
    };
  };
  // The processes are new: a pass of each variant first, not counted, so no figure includes
  // their compilation and first connections.
  for (const variant of VARIANTS) await measure(variant, options.warmUpS);
  // Rounds interleave the variants, so a drift of the machine's speed falls on all of them.
  for (let round = 0; round < options.rounds; round++) {
    for (const variant of VARIANTS) {
      const figures = await measure(variant, options.durationS);
      result.read[variant].push(figures.read);
      result.wait[variant].push(figures.wait);
    }
  }
  return result;
}
