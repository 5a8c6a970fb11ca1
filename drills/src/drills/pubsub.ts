import { type DrillCase, type DrillContext, casesOn } from "../harness/drill";
import { HeldStream, type HeldWait, holdWait } from "../harness/held";
import { Connection, type Message, deliver } from "../harness/load";
import type { Inbox } from "../harness/target";
import { show, sleep, until } from "../harness/time";

const WAIT_INBOXES = 10;
const WAITS_PER_INBOX = 2;
const STREAMS = 5;
const WAIT_TIMEOUT_MS = 90_000;

/** Redis clients in pub/sub mode now (the subscriber connections of the waiter and the edge). */
async function subscribers(ctx: DrillContext): Promise<number> {
  const list = String(await ctx.engines.redis.command("CLIENT", "LIST", "TYPE", "pubsub"));
  return list.split("\n").filter((line) => line.includes("id=")).length;
}

interface Round {
  waits: { wait: HeldWait; message: Message }[];
}

/** Holds a wait per message with a match only that message satisfies. */
function holdRound(ctx: DrillContext, inboxes: Inbox[], label: string): Round {
  const waits: Round["waits"] = [];
  for (const inbox of inboxes) {
    for (let i = 0; i < WAITS_PER_INBOX; i++) {
      const message = ctx.message([inbox], `${label} ${i}`);
      waits.push({ message, wait: holdWait(ctx.target, inbox.id, { match: { subject_contains: message.subject }, timeoutMs: WAIT_TIMEOUT_MS }) });
    }
  }
  return { waits };
}

/** Sends each round's message (retrying as an MTA would) and checks every wait matched its own. */
async function complete(ctx: DrillContext, round: Round, label: string): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  await Promise.all(
    round.waits.map(async ({ message }) => {
      const connection = new Connection(() => ctx.target.smtpPort);
      await deliver(connection, message, () => giveUpAt);
      await connection.quit();
    }),
  );
  const answers = await Promise.all(round.waits.map(({ wait }) => wait.answer));
  const matched = answers.filter((answer, i) => answer.status === 200 && answer.body?.status === "matched" && answer.body.message?.subject === round.waits[i]!.message.subject);
  ctx.note(`${label}: ${matched.length}/${answers.length} waits matched`);
  if (matched.length < answers.length) {
    const other = answers.find((answer, i) => !(answer.status === 200 && answer.body?.status === "matched" && answer.body.message?.subject === round.waits[i]!.message.subject));
    ctx.fail(`${label}: ${answers.length - matched.length} held waits did not match their message (e.g. ${other?.status} ${show(other?.body, 200)})`);
  }
}

/**
 * The Redis subscriber connection killed (`CLIENT KILL TYPE pubsub`) while waits and event
 * streams are held, and messages arriving right after: their arrivals are published while
 * nothing listens. The bus must subscribe again and re-read, so every wait still matches and
 * every stream still gets its frames; a second round checks the new subscription itself.
 */
async function pubsubKilled(ctx: DrillContext): Promise<void> {
  const load = ctx.load(await ctx.inboxes(2));
  const inboxes = await ctx.inboxes(WAIT_INBOXES, "waits");
  const streams = inboxes.slice(0, STREAMS).map((inbox) => ({ inbox, stream: new HeldStream(ctx.target, inbox.id) }));
  try {
    await until("every stream to open", () => streams.every(({ stream }) => stream.has("open")), 20_000);
    const first = holdRound(ctx, inboxes, "before the kill");
    await until("the waiter's subscriber to be connected", async () => (await subscribers(ctx)) > 0, 10_000);
    // Nothing shows that a wait is registered; a second is ample for 20 requests on loopback.
    await sleep(1_000);
    const killed = Number(await ctx.engines.redis.command("CLIENT", "KILL", "TYPE", "pubsub"));
    ctx.note(`CLIENT KILL TYPE pubsub closed ${killed} connection(s)`);
    ctx.check(killed > 0, "no pub/sub connection to kill");
    await complete(ctx, first, "round 1 (sent right after the kill)");

    await until("a subscriber to be back", async () => (await subscribers(ctx)) > 0, 30_000);
    const second = holdRound(ctx, inboxes, "after the resubscribe");
    await sleep(1_000);
    await complete(ctx, second, "round 2");

    // Each stream must have a frame for every message its inbox received in both rounds.
    const ownMessages = [...first.waits, ...second.waits].map((w) => w.message);
    const missing = () =>
      streams.flatMap(({ inbox, stream }) =>
        ownMessages.filter((m) => m.inboxes[0]!.id === inbox.id).filter((m) => !stream.has("message", (f) => f.data?.subject === m.subject)),
      );
    await until("every stream to have a frame per arrival", () => missing().length === 0, 30_000).catch(() => undefined);
    const expected = ownMessages.filter((m) => streams.some((s) => s.inbox.id === m.inboxes[0]!.id)).length;
    ctx.note(`streams: ${expected - missing().length}/${expected} arrivals framed`);
    ctx.check(missing().length === 0, `${missing().length} arrivals never reached their open stream (${streams.map((s) => `${s.stream.frames.map((f) => f.event).join("/")}`).join("; ").slice(0, 300)})`);
    await load.stop();
    await ctx.tally([...load.messages, ...ownMessages]);
  } finally {
    for (const { stream } of streams) stream.close();
  }
}

export const pubsubCases: DrillCase[] = casesOn(["monolith", "fleet"], "fleet", { id: "pubsub-kill", drill: "Redis pub/sub subscriber killed", run: pubsubKilled });
