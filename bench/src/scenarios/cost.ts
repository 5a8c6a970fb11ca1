import { call } from "../lib/api";
import { SENDER, message } from "../lib/mail";
import { SmtpClient, openPool } from "../lib/smtp-client";
import { mean, median, p99, sleep, until } from "../lib/stats";
import type { Row } from "../report";
import type { MailstopTarget, ServerProcess } from "../targets/mailstop";
import type { Plan } from "./plan";
import { type ReadResult, readLoad } from "./reads";
import type { Scenario } from "./scenario";

/**
 * The shape shared by the scenarios that price one setting (limits-cost, metrics-cost): the same
 * two hot paths, each on split processes identical but for that setting, measured as variants
 * at one rate, a warm-up pass of each variant first, then rounds that interleave the variants,
 * so a drift of the machine's speed falls on all of them. The table shows the mean latency of
 * the variant without the setting, then with it.
 */
export interface CostOptions {
  rate: number;
  durationS: number;
  warmUpS: number;
  rounds: number;
  /** Transactions a second on the SMTP path, for the variants that have an edge. */
  smtpRate?: number;
}

export interface CostResult<V extends string> {
  rate: number;
  /** `GET /v1/messages/{id}` on a split api: one result per round. */
  read: Record<V, ReadResult[]>;
  /** `POST /v1/messages/wait` whose match is stored (it answers at once) on a split waiter. */
  wait: Record<V, ReadResult[]>;
  /** Transactions on a split smtp-edge (MAIL to the final 250), when the variants have one. */
  smtp?: { rate: number; runs: Record<V, ReadResult[]> };
}

/** A project with a stored message to read, and to match with a wait that answers at once. */
export interface CostProject {
  apiKey: string;
  inboxId: string;
  messageId: string;
  subject: string;
}

/** Where a variant is measured: its split api and waiter, and the project whose key calls them; and its edge with the address it sends to. */
export interface CostSetup {
  api: ServerProcess;
  waiter: ServerProcess;
  project: CostProject;
  edge?: { smtpPort: number; to: string };
}

const HIGH = 1_000_000_000;

/** A project of its own organisation with `stored` messages in one inbox; `limited` turns every allowance check on. */
export async function costProject(target: MailstopTarget, tag: string, limited: boolean, stored: number): Promise<CostProject> {
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

/**
 * `rate` transactions a second for `durationS` seconds on one open connection, one after
 * another (2 KB each), each timed from when it was due to its 250, so an edge that falls
 * behind is not excused, as autocannon times the HTTP paths.
 */
async function smtpLoad(port: number, to: string, options: { rate: number; durationS: number }): Promise<ReadResult> {
  const client = await SmtpClient.connect(port);
  const times: number[] = [];
  let failed = 0;
  const started = performance.now();
  const count = Math.max(1, Math.round(options.rate * options.durationS));
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / options.rate;
    if (due > performance.now()) await sleep(due - performance.now());
    const raw = message("2kb", to, `smtp cost #${i}`);
    try {
      await client.send(SENDER, to, raw);
      times.push(performance.now() - due);
    } catch {
      failed++;
    }
  }
  client.close();
  const elapsedS = (performance.now() - started) / 1000;
  return { requestsPerSecond: times.length / elapsedS, meanMs: mean(times), p50Ms: median(times), p99Ms: p99(times), maxMs: Math.max(...times), failed };
}

/** Both paths of every variant at `options.rate`: a warm-up pass not counted, then interleaved rounds. */
export async function measureCost<V extends string>(variants: readonly V[], setups: Record<V, CostSetup>, options: CostOptions): Promise<CostResult<V>> {
  const empty = () => Object.fromEntries(variants.map((v) => [v, [] as ReadResult[]])) as Record<V, ReadResult[]>;
  const smtpRate = options.smtpRate;
  const withEdges = smtpRate !== undefined && variants.every((v) => setups[v].edge !== undefined);
  const result: CostResult<V> = { rate: options.rate, read: empty(), wait: empty(), ...(withEdges ? { smtp: { rate: smtpRate, runs: empty() } } : {}) };
  const load = { rate: options.rate, connections: 20 };
  const measure = async (variant: V, durationS: number) => {
    const { api, waiter, project, edge } = setups[variant];
    const auth = { authorization: `Bearer ${project.apiKey}` };
    const wait = { inbox: project.inboxId, match: { subject_contains: project.subject }, timeout_ms: 5000 };
    return {
      read: await readLoad(`${api.url}/v1/messages/${project.messageId}`, auth, { ...load, durationS }),
      wait: await readLoad(`${waiter.url}/v1/messages/wait`, auth, { ...load, durationS, method: "POST", body: wait }),
      smtp: withEdges ? await smtpLoad(edge!.smtpPort, edge!.to, { rate: smtpRate, durationS }) : null,
    };
  };
  // The processes are new: a pass of each variant first, not counted, so no figure includes
  // their compilation and first connections.
  for (const variant of variants) await measure(variant, options.warmUpS);
  for (let round = 0; round < options.rounds; round++) {
    for (const variant of variants) {
      const figures = await measure(variant, options.durationS);
      result.read[variant].push(figures.read);
      result.wait[variant].push(figures.wait);
      if (figures.smtp) result.smtp!.runs[variant].push(figures.smtp);
    }
  }
  return result;
}

/** A variant's rounds in one: the means of their mean, p50 and p99 latencies, and every failure. */
export interface CostFigures {
  mean: number;
  p50: number;
  p99: number;
  failed: number;
}

function figuresOf(runs: readonly ReadResult[]): CostFigures {
  return { mean: mean(runs.map((r) => r.meanMs)), p50: mean(runs.map((r) => r.p50Ms)), p99: mean(runs.map((r) => r.p99Ms)), failed: runs.reduce((sum, r) => sum + r.failed, 0) };
}

/** How the rows of a cost scenario name its variants. */
export interface CostRowSpec<V extends string> {
  subject: string;
  variants: readonly V[];
  rounds: number;
  without: { variant: V; text: string; note: string };
  with: { variant: V; text: string };
  detail?: (figures: Record<V, CostFigures>) => string;
}

/**
 * Two rows a path: the mean latency of `without`, then of `with`, whose target is "not
 * measurable": at most 0.5 ms more, or, when `without`'s own rounds spread wider than that, no
 * more than that spread (a difference the unchanged variant shows between its rounds is noise,
 * not cost), and no failure in any variant. `detail` adds to the second row's note (the
 * variants in between, when there are more than two).
 */
export function costRows<V extends string>(result: CostResult<V>, spec: CostRowSpec<V>): Row[] {
  const paths: [Record<V, ReadResult[]>, string][] = [
    [result.read, `GET one message at ${result.rate} req/s (split api)`],
    [result.wait, `wait with a stored match at ${result.rate} req/s (split waiter)`],
    ...(result.smtp ? [[result.smtp.runs, `SMTP transaction (MAIL to 250, 2 KB) at ${result.smtp.rate} msg/s (split smtp-edge)`] as [Record<V, ReadResult[]>, string]] : []),
  ];
  return paths.flatMap(([runs, label]) => {
    const figures = Object.fromEntries(spec.variants.map((variant) => [variant, figuresOf(runs[variant])])) as Record<V, CostFigures>;
    const [without, withIt] = [figures[spec.without.variant], figures[spec.with.variant]];
    const rounds = runs[spec.without.variant].map((r) => r.meanMs);
    const noise = Math.max(0.5, Math.max(...rounds) - Math.min(...rounds));
    return [
      {
        scenario: `${spec.subject}, ${label}: mean latency, ${spec.without.text}`,
        unit: "ms",
        values: { mailstop: without.mean },
        note: `p50 ${without.p50.toFixed(1)}, p99 ${without.p99.toFixed(1)} ms; ${spec.without.note}; mean of ${spec.rounds} rounds interleaved with the rows below`,
      },
      {
        scenario: `  same ${spec.with.text}`,
        unit: "ms",
        values: { mailstop: withIt.mean },
        note: `p50 ${withIt.p50.toFixed(1)}, p99 ${withIt.p99.toFixed(1)} ms; ${spec.detail ? `${spec.detail(figures)}; ` : ""}failed ${spec.variants.map((v) => figures[v].failed).join("/")}; without's rounds spread ${(Math.max(...rounds) - Math.min(...rounds)).toFixed(2)} ms`,
        target: { text: "≤ without + max(0.5 ms, without's spread)", pass: withIt.mean <= without.mean + noise && spec.variants.every((v) => figures[v].failed === 0) },
      },
    ];
  });
}

/** The plan's entries that price a setting. */
type CostPlan = { [K in keyof Plan]: Plan[K] extends CostOptions ? K : never }[keyof Plan];

/**
 * A scenario pricing one setting, run with the plan's `options` against the monolith's engines:
 * its result in the details under its name, its rows without → with in the table, headed by its
 * name in words (`limits-cost`: "limits cost").
 */
export function costScenario<V extends string>(
  name: string,
  options: CostPlan,
  measure: (target: MailstopTarget, options: CostOptions) => Promise<CostResult<V>>,
  spec: Omit<CostRowSpec<V>, "subject" | "rounds">,
): Scenario {
  return {
    name,
    async run(ctx) {
      const planned = ctx.plan[options];
      const result = await measure(ctx.targets.mailstop, planned);
      ctx.details[name] = result;
      ctx.rows.push(...costRows(result, { ...spec, subject: name.replaceAll("-", " "), rounds: planned.rounds }));
    },
  };
}
