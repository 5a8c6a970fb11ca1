import { request } from "../harness/api";
import type { DrillCase, DrillContext } from "../harness/drill";
import { holdWait } from "../harness/held";
import { Connection, type Message, accepted, deliver } from "../harness/load";
import type { Service } from "../harness/service";
import type { Inbox } from "../harness/target";
import { say, show, sleep, until } from "../harness/time";

/** How long PostgreSQL is gone: a failover's promotion as the clients see it (connections cut, then refused). */
const DOWN_MS = 5_000;
/** The most a service may take to serve again after PostgreSQL is back; without a restart of its own. */
const RECOVERY_LIMIT_MS = 15_000;
const STARTED = /"msg":"mailstop started"/g;

/** Where a service answers /ready: its HTTP listener, or the operations listener of an edge or a parser. */
const readyUrl = (service: Service) => `${service.httpUrl ?? `http://127.0.0.1:${service.ports.ops}`}/ready`;

const ready = (service: Service) =>
  fetch(readyUrl(service), { signal: AbortSignal.timeout(2_000) }).then(
    (response) => (void response.body?.cancel(), response.status === 200),
    () => false,
  );

/** One try of `message` through one edge, on a new connection: a probe, not a sender. */
async function oneTry(port: number, message: Message): Promise<boolean> {
  const connection = new Connection(() => port);
  await deliver(connection, message, () => 0);
  await connection.quit();
  return message.attempts.at(-1)?.code === 250;
}

/** Polls `probe` every 100 ms from `from` on; resolves to the seconds it took, or null past the limit. */
async function secondsUntil(what: string, from: number, probe: () => Promise<boolean>): Promise<number | null> {
  return until(what, probe, RECOVERY_LIMIT_MS + 5_000, 100).then(
    () => (Date.now() - from) / 1000,
    () => null,
  );
}

/**
 * PostgreSQL restarted (`pg_ctl stop -m fast`, 5 s gone, started again: a failover as the
 * clients see it) while 12 senders deliver through two SMTP edges of the split fleet. While it
 * is gone every transaction must be refused with a 4xx (never a 250, never a 5xx a sender would
 * bounce); after its return every service must serve again within seconds on its own: each
 * edge's /ready and a real SMTP transaction through it, the parser's /ready and that
 * transaction parsed, the api's /ready and a read, the waiter's /ready and a wait matched. None
 * may have restarted (same pids, one start line each), and nothing accepted may be missing.
 */
async function postgresFailover(ctx: DrillContext): Promise<void> {
  const { postgres } = ctx.engines;
  const { target } = ctx;
  const inboxes = await ctx.inboxes(4);
  const load = ctx.load(inboxes);
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();
  const pids = target.services.map((service) => service.process.pid);

  await postgres.stop("fast");
  const down = Date.now();
  await sleep(DOWN_MS);
  const restarting = Date.now();
  await postgres.start();
  const back = Date.now();
  ctx.note(`PostgreSQL down ${((restarting - down) / 1000).toFixed(1)} s, accepting queries ${((back - restarting) / 1000).toFixed(1)} s after its start`);

  const probes: Message[] = [];
  const probeInbox: Inbox = inboxes[0]!;
  const recovery = await Promise.all([
    ...target.edges.map(async (edge, i) => {
      const seconds = await secondsUntil(`edge ${i + 1} to accept`, back, async () => {
        if (!(await ready(edge))) return false;
        const message = ctx.message([probeInbox], `through edge ${i + 1} after PostgreSQL's return`);
        probes.push(message);
        return oneTry(edge.ports.smtp!, message);
      });
      return { what: `smtp-edge ${i + 1}`, seconds };
    }),
    (async () => {
      const api = target.service("api");
      const seconds = await secondsUntil("the api to read", back, async () => {
        if (!(await ready(api))) return false;
        const answer = await request(target.apiUrl, target.apiKey, "GET", `/v1/messages?inbox=${probeInbox.id}&limit=1`, undefined, 2_000).catch(() => ({ status: 0 }));
        return answer.status === 200;
      });
      return { what: "api", seconds };
    })(),
    (async () => {
      const waiter = target.service("waiter");
      const seconds = await secondsUntil("the waiter to answer a wait", back, async () => {
        if (!(await ready(waiter))) return false;
        const answer = await request(target.waitUrl, target.apiKey, "POST", "/v1/messages/wait", { inbox: probeInbox.id, timeout_ms: 1 }, 2_000).catch(() => ({ status: 0 }));
        return answer.status === 200;
      });
      return { what: "waiter", seconds };
    })(),
    (async () => {
      const parser = target.service("parser");
      const seconds = await secondsUntil("the parser to be ready", back, () => ready(parser));
      return { what: "parser", seconds };
    })(),
  ]);
  ctx.note(`serving again after PostgreSQL's return (/ready and a real request each): ${recovery.map((r) => `${r.what} ${r.seconds === null ? "never" : `${r.seconds.toFixed(1)} s`}`).join(", ")}`);
  for (const { what, seconds } of recovery) {
    ctx.check(seconds !== null && seconds * 1000 <= RECOVERY_LIMIT_MS, `${what} did not serve again within ${RECOVERY_LIMIT_MS / 1000} s of PostgreSQL's return (${seconds === null ? "never" : `${seconds.toFixed(1)} s`})`);
  }

  // The arrival path end to end: a message sent through the second edge now, matched by a wait.
  const roundTrip = ctx.message([probeInbox], "round trip after PostgreSQL's return");
  const sentAt = Date.now();
  const wait = holdWait(target, probeInbox.id, { match: { subject_contains: roundTrip.subject }, timeoutMs: 30_000 });
  await sleep(200);
  const connection = new Connection(() => target.edges.at(-1)!.ports.smtp!);
  await deliver(connection, roundTrip, () => Date.now() + 20_000);
  await connection.quit();
  const answer = await wait.answer;
  const matched = answer.status === 200 && answer.body?.status === "matched";
  ctx.note(`a message sent ${((sentAt - back) / 1000).toFixed(1)} s after the return ${matched ? `matched by a wait ${((answer.at - sentAt) / 1000).toFixed(1)} s later` : "never matched"}`);
  ctx.check(matched, `the wait for a message sent after PostgreSQL's return was answered ${answer.status} ${show(answer.body, 200)}`);

  // Refusals while it was gone: 4xx or no reply (connections cut), never a 5xx a sender would bounce.
  const tries = load.messages.flatMap((m) => m.attempts);
  const outage = tries.filter((a) => a.at > down && a.at < back);
  const accepted250 = outage.filter((a) => a.code === 250 && a.dotAt !== undefined && a.dotAt > down + 500 && a.at < restarting);
  const final = outage.filter((a) => a.code !== null && a.code >= 500);
  const codes = new Map<string, number>();
  for (const a of outage.filter((a) => a.code !== 250)) codes.set(String(a.code ?? "none"), (codes.get(String(a.code ?? "none")) ?? 0) + 1);
  ctx.note(`tries refused during the outage: ${[...codes].map(([code, n]) => `${n}×${code}`).join(", ") || "none"}`);
  ctx.check(accepted250.length === 0, `${accepted250.length} 250s for transactions ended while PostgreSQL was down`);
  ctx.check(final.length === 0, `${final.length} tries answered 5xx during the outage (${show(final[0])}); a sender bounces those`);

  await ctx.flowing(load, "PostgreSQL's return", 20, 60_000);
  await ctx.ingest();
  await load.stop();
  const perEdge = target.edges.map((edge) => (edge.process.log().match(/"msg":"transaction accepted"/g) ?? []).length);
  ctx.note(`accepted per edge: ${perEdge.join(" + ")}`);
  ctx.check(perEdge.every((n) => n > 0), `an edge accepted nothing (${perEdge.join(", ")}): the load was not split`);

  // No restart: the same processes, each started once.
  const restarted = target.services.filter((service, i) => !service.running || service.process.pid !== pids[i] || (service.process.log().match(STARTED) ?? []).length !== 1);
  ctx.note(restarted.length === 0 ? `no process restarted (${target.services.length} pids unchanged)` : `restarted: ${restarted.map((s) => s.name).join(", ")}`);
  ctx.check(restarted.length === 0, `${restarted.map((s) => s.name).join(", ")} restarted or exited`);
  say(`${ctx.row.drill} on fleet: ${probes.filter(accepted).length} probe messages accepted`);
  await ctx.tally([...load.messages, ...probes, roundTrip]);
}

export const postgresFailoverCases: DrillCase[] = [
  {
    id: "postgres-failover",
    drill: "PostgreSQL restart (failover) under SMTP load, two edges",
    target: "fleet",
    // About 20 s: part of CI's --quick.
    quick: true,
    options: { smtpEdges: 2 },
    run: postgresFailover,
  },
];
