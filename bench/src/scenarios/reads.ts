import { call } from "../lib/api";
import { SENDER, message } from "../lib/mail";
import { openPool } from "../lib/smtp-client";
import { until } from "../lib/stats";
import type { ApiTarget } from "../targets/mailstop";
import type { Scenario } from "./scenario";

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

/** 200 messages of 2 KB to `to`: 20 on each of 10 connections, subjects `reads <lane>-<i>`. */
async function sendReads(port: number, to: string): Promise<void> {
  const pool = await openPool(port, 10);
  await Promise.all(pool.map(async (client, lane) => {
    for (let i = 0; i < 20; i++) await client.send(SENDER, to, message("2kb", to, `reads ${lane}-${i}`));
  }));
  for (const client of pool) client.close();
}

/** Fills a new inbox of `target` with 200 messages and returns the id of one in the middle, once all are visible. */
async function filledMessage(target: ApiTarget): Promise<string> {
  const count = 200;
  const inbox = await target.createInbox(`reads.${Date.now().toString(36)}`);
  await sendReads(target.smtpPort, inbox.address);
  const listed = () => call<{ data: Array<{ id: string }> }>(target.url, target.apiKey, "GET", `/v1/messages?inbox=${inbox.id}&limit=200`);
  let ids: string[] = [];
  await until(async () => (ids = (await listed()).data.map((each) => each.id)).length >= count, `${count} messages to read on ${target.name}`, 30_000);
  return ids[Math.floor(count / 2)]!;
}

/**
 * One message read at a fixed rate (mailstop, MailDev, and the embedded and fleet columns where
 * the run has them), then a filtered list flat out (mailstop and MailDev).
 */
export const readsScenario: Scenario = {
  name: "reads",
  async run({ plan, targets: { mailstop, maildev, embedded, fleet }, rows, details }) {
    // A filled inbox on each server that has a read API.
    const inbox = await mailstop.createInbox(`reads.${Date.now().toString(36)}`);
    const maildevTag = `reads-${Date.now().toString(36)}@maildev.example`;
    await sendReads(mailstop.smtpPort, inbox.address);
    await sendReads(maildev.smtpPort, maildevTag);
    let ids: string[] = [];
    await until(async () => (ids = await mailstop.listIds(inbox.id)).length >= 200, "200 messages to read", 30_000);
    const maildevEmails = (await (await fetch(`${maildev.webUrl}/email`)).json()) as Array<{ id: string; subject: string }>;
    const maildevOne = maildevEmails.find((e) => e.subject.startsWith("reads "))!;
    const auth = { authorization: `Bearer ${mailstop.apiKey}` };
    const rate = 1000;
    const one = {
      mailstop: await mailstop.profilePhase("reads-get", () => readLoad(`${mailstop.url}/v1/messages/${ids[100]}`, auth, { rate, connections: 20, durationS: plan.readsS })),
      maildev: await readLoad(`${maildev.webUrl}/email/${maildevOne.id}`, {}, { rate, connections: 20, durationS: plan.readsS }),
    };
    // The same read on the embedded and fleet columns, each with an inbox of its own filled the same way.
    const others: Partial<Record<"mailstop-embedded" | "mailstop-fleet", ReadResult>> = {};
    for (const other of [embedded, fleet]) {
      if (other === null) continue;
      const id = await filledMessage(other);
      others[other.name as keyof typeof others] = await readLoad(`${other.url}/v1/messages/${id}`, { authorization: `Bearer ${other.apiKey}` }, { rate, connections: 20, durationS: plan.readsS });
    }
    details["reads.get"] = { ...one, ...others };
    const otherNotes = Object.entries(others).map(([name, each]) => `; ${name} ${each!.requestsPerSecond.toFixed(0)} req/s, p50 ${each!.p50Ms} ms, failed ${each!.failed}`);
    rows.push({
      scenario: `GET one message at ${rate} req/s: p99`,
      unit: "ms",
      values: { mailstop: one.mailstop.p99Ms, maildev: one.maildev.p99Ms, ...Object.fromEntries(Object.entries(others).map(([name, each]) => [name, each!.p99Ms])) },
      note: `achieved mailstop ${one.mailstop.requestsPerSecond.toFixed(0)}, MailDev ${one.maildev.requestsPerSecond.toFixed(0)} req/s; p50 ${one.mailstop.p50Ms} / ${one.maildev.p50Ms} ms; failed ${one.mailstop.failed} / ${one.maildev.failed}${otherNotes.join("")}`,
      target: {
        text: "≤ 10 ms and < MailDev",
        pass: one.mailstop.p99Ms <= 10 && one.mailstop.p99Ms < one.maildev.p99Ms && one.mailstop.failed === 0 && one.mailstop.requestsPerSecond >= rate * 0.95,
      },
    });
    const filtered = {
      mailstop: await readLoad(`${mailstop.url}/v1/messages?inbox=${encodeURIComponent(inbox.address)}&subject_contains=reads%205-&limit=50`, auth, { connections: 10, durationS: plan.readsS }),
      maildev: await readLoad(`${maildev.webUrl}/email?subject=${encodeURIComponent(maildevOne.subject)}`, {}, { connections: 10, durationS: plan.readsS }),
    };
    details["reads.list"] = filtered;
    rows.push({
      scenario: "filtered list, 10 connections flat out",
      unit: "req/s",
      values: { mailstop: filtered.mailstop.requestsPerSecond, maildev: filtered.maildev.requestsPerSecond },
      note: `p99 ${filtered.mailstop.p99Ms} / ${filtered.maildev.p99Ms} ms; mailstop: GET /v1/messages?inbox&subject_contains (200 in the inbox), MailDev: GET /email?subject= (${maildevEmails.length} stored)`,
    });
  },
};
