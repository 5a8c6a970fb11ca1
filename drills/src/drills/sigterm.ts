import { type DrillCase, type DrillContext, serviceCases } from "../harness/drill";
import { HeldStream, holdWait, retryableRefusal, TransactionInData } from "../harness/held";
import type { ServiceName } from "../harness/service";
import { show, sleep, until, within } from "../harness/time";

/** The longest a service may take to exit after SIGTERM (an orchestrator's grace period). */
const EXIT_DEADLINE_MS = 30_000;
const HELD = 5;
const IN_DATA = 4;

/**
 * SIGTERM of one process under load, with waits and event streams held on it (the monolith,
 * the waiter) and transactions in the middle of DATA on it (the monolith, the edge). The
 * transactions must finish with a 250 after the signal, each wait must be answered a
 * retryable error, each stream must end with `closed`, and the process must exit 0 within
 * 30 s. It is then started again and nothing accepted may be missing.
 */
async function sigtermUnderLoad(ctx: DrillContext, name: ServiceName): Promise<void> {
  const service = ctx.target.service(name);
  const holdsWaits = name === "all" || name === "waiter";
  const holdsData = name === "all" || name === "smtp-edge";
  const inboxes = await ctx.inboxes(4);
  const load = ctx.load(inboxes);
  await ctx.flowing(load, "the load began", 40);
  await ctx.ingest();

  const idle = holdsWaits ? await ctx.inboxes(HELD, "held") : [];
  const waits = idle.map((inbox) => holdWait(ctx.target, inbox.id, { match: { subject_contains: "never sent" }, timeoutMs: 120_000 }));
  const streams = idle.map((inbox) => new HeldStream(ctx.target, inbox.id));
  const inData = holdsData
    ? await Promise.all(Array.from({ length: IN_DATA }, (_, i) => TransactionInData.begin(ctx.target.smtpPort, ctx.message([inboxes[i]!], "in DATA at SIGTERM"))))
    : [];
  try {
    await until("every held stream to open", () => streams.every((s) => s.has("open")), 20_000);
    // Nothing shows that a wait is registered; a second is ample on loopback.
    if (holdsWaits) await sleep(1_000);

    const signalled = Date.now();
    service.process.signal("SIGTERM");
    // The senders in DATA go on a second later: their transactions began before the signal.
    await sleep(1_000);
    const replies = await Promise.all(inData.map((t) => t.finish(EXIT_DEADLINE_MS)));
    if (holdsData) {
      const codes = replies.map((r) => r?.code ?? "none");
      ctx.note(`in DATA at SIGTERM: ${codes.join(",")}`);
      ctx.check(codes.every((c) => c === 250), `transactions in DATA at SIGTERM were answered ${codes.join(", ")} (each must finish with 250)`);
    }
    if (holdsWaits) {
      const answers = await Promise.all(waits.map((w) => within("a held wait", w.answer, EXIT_DEADLINE_MS + 5_000).catch((e: Error) => ({ status: -1, body: e.message, at: Date.now() }))));
      const retryable = answers.filter(retryableRefusal).length;
      ctx.note(`held waits: ${retryable}/${answers.length} answered 503 retryable`);
      const other = answers.find((a) => !retryableRefusal(a));
      ctx.check(other === undefined, `a held wait was answered ${other?.status} ${show(other?.body, 200)} instead of a retryable 503`);
      await Promise.all(streams.map((s) => within("a held stream's end", s.ended, EXIT_DEADLINE_MS + 5_000).catch(() => "still open")));
      const closed = streams.filter((s) => s.has("closed")).length;
      ctx.note(`streams: ${closed}/${streams.length} ended with closed`);
      ctx.check(closed === streams.length, `${streams.length - closed} held streams ended without a closed frame`);
    }
    const exit = await within(`${name} to exit`, service.process.exited, EXIT_DEADLINE_MS + 10_000).catch(async () => service.kill());
    const exitMs = exit.at - signalled;
    ctx.note(`exit ${exit.signal ?? `code ${exit.code}`} ${(exitMs / 1000).toFixed(1)} s after SIGTERM`);
    ctx.check(exitMs <= EXIT_DEADLINE_MS, `${name} took ${(exitMs / 1000).toFixed(1)} s to exit after SIGTERM (limit 30 s)`);
    ctx.check(exit.code === 0, `${name} exited with ${exit.signal ?? `code ${exit.code}`} after SIGTERM, not 0`);
  } finally {
    for (const stream of streams) stream.close();
  }
  await service.start();
  await ctx.flowing(load, "the restart");
  await ctx.ingest();
  await load.stop();
  await ctx.tally([...load.messages, ...inData.map((t) => t.message)]);
}

const sigterm = { id: "sigterm", name: "SIGTERM", run: sigtermUnderLoad };

export const sigtermCases: DrillCase[] = [
  ...serviceCases(sigterm, "monolith", ["all"], () => true),
  ...serviceCases(sigterm, "embedded", ["all"], () => false),
  ...serviceCases(sigterm, "fleet", ["smtp-edge", "parser", "api", "waiter"], (s) => s === "waiter"),
];
