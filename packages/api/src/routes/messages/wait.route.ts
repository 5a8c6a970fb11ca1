import { type Db, type MessageFilter, type MessageRecord, findReadableMessage, listReadableMessages } from "@mailstop/db";
import { MailstopError, restarting } from "@mailstop/core";
import { EncodedJson } from "@mailstop/http";
import type { ArrivalEvent, Bus, WaitSlots } from "@mailstop/messaging";
import type { PublicComponents } from "@mailstop/openapi";
import type { ApiDeps } from "../../deps";
import { publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";
import { type Mismatch, explainMismatch, timeoutHint } from "../../messages/explain-mismatch";
import { messageFilterFrom } from "../../messages/message-filter";
import { type MessageView, type ViewOptions, toMessageView } from "../../messages/message.view";
import { onAbort } from "../../stream/on-abort";
import { type HeldWait, HeldWaits } from "../../waits/held-waits";

export interface WaiterDeps extends ApiDeps {
  bus: Bus;
  slots: WaitSlots;
  /** Aborted when the process begins to shut down: open event streams end so clients reconnect elsewhere. */
  shutdown: AbortSignal;
}

/** What a held wait gets when its waiter shuts down (see restarting). */
const shuttingDown = restarting;

type WaitResult = PublicComponents["schemas"]["WaitResult"];

/**
 * How long before its start a wait with `match` still takes a message found by a re-check
 * after a bus drop: one received just before the wait began may have been stored (and its
 * arrival lost) after the wait's own first look. A wait without `match` counts only messages
 * received once it began, as it always does.
 */
const RECHECK_LOOKBACK_MS = 60_000;

/** When a client refused for concurrency should try again. */
const CONCURRENCY_RETRY_SECONDS = 1;

/**
 * One question asked once. Every wait blocked on an inbox hears each arrival at the same
 * moment, and waits with the same match ask the database the same thing about it; while that
 * answer is in flight, later askers share it. The arrival is already committed when it is
 * announced, so they would all read the same rows: 10,000 waits on 100 inboxes cost one query
 * per inbox and distinct match instead of 10,000. Nothing is kept once the answer is in.
 */
class SharedQuestions<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  ask(key: string, query: () => Promise<T>): Promise<T> {
    let answer = this.inFlight.get(key);
    if (answer === undefined) {
      answer = query().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, answer);
    }
    return answer;
  }
}

const arrivalChecks = new SharedQuestions<MessageRecord | null>();
const readableChecks = new SharedQuestions<MessageRecord | null>();

/** The arrival if it satisfies the wait's filter, else null. */
function arrivalMatching(db: Db, projectId: string, filter: MessageFilter, messageId: string): Promise<MessageRecord | null> {
  return arrivalChecks.ask(JSON.stringify([projectId, messageId, filter]), async () => {
    const [hit] = await listReadableMessages(db, projectId, { ...filter, id: messageId }, { beforeSeq: null, limit: 1 });
    return hit ?? null;
  });
}

/** The arrival whatever its content, when it is readable (to explain a miss). */
function arrivalReadable(db: Db, projectId: string, messageId: string): Promise<MessageRecord | null> {
  return readableChecks.ask(JSON.stringify([projectId, messageId]), () => findReadableMessage(db, projectId, messageId));
}

/**
 * The view of an arrival, rendered and encoded once for every wait it matches with the same
 * options: each of those waits sends the same bytes. The record is shared by those waits (see
 * SharedQuestions), so its views live exactly as long as it does; html, headers or raw slices
 * are read from the object store once, and the view is stringified and encoded once, not once
 * per wait (10,000 waits woken together spent more on `res.json` than on anything of theirs).
 */
const viewsOf = new WeakMap<MessageRecord, Map<string, Promise<EncodedJson<MessageView>>>>();

function sharedView(record: MessageRecord, options: ViewOptions): Promise<EncodedJson<MessageView>> {
  let views = viewsOf.get(record);
  if (views === undefined) {
    views = new Map();
    viewsOf.set(record, views);
  }
  const key = JSON.stringify([[...options.formats].sort(), options.previewChars, options.origin]);
  let view = views.get(key);
  if (view === undefined) {
    const rendering = toMessageView(record, options).then((rendered) => EncodedJson.of(rendered));
    view = rendering;
    views.set(key, rendering);
    // A failed read is not kept: the next wait tries again.
    const forget = views;
    rendering.catch(() => forget.delete(key));
  }
  return view;
}

const MATCHED_HEAD = Buffer.from('{"status":"matched","message":');

/** A matched wait's body around its shared view: only `waited_ms` is its own. */
function matchedBody(view: EncodedJson<MessageView>, waitedMs: number): EncodedJson<WaitResult> {
  return new EncodedJson(Buffer.concat([MATCHED_HEAD, view.bytes, Buffer.from(`,"waited_ms":${waitedMs}}`)]));
}

/**
 * Arrivals of one inbox, queued until the wait looks at them; `next` resolves on the next one,
 * on `leave`, or at the wait's deadline. A waiter holds 10,000 of these at a time, mostly
 * idle: the queue and its set of seen ids are made on the first arrival, and waiting keeps
 * one resolver and one timer, not a closure of its own (under tsx every named function also
 * carries a property table for its name).
 */
class ArrivalQueue implements HeldWait {
  private events: ArrivalEvent[] | null = null;
  private seen: Set<string> | null = null;
  private waiting: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The client went away, or the waiter is shutting down. */
  left = false;

  constructor(readonly since: number) {}

  push(event: ArrivalEvent): void {
    this.seen ??= new Set();
    // A retried parse job announces its message again: each message is looked at once.
    if (this.seen.has(event.message_id)) return;
    this.seen.add(event.message_id);
    (this.events ??= []).push(event);
    this.wake();
  }

  /** Messages stored while the bus was away: each one received since this wait's bound is an arrival, oldest first. */
  recheck(stored: readonly MessageRecord[]): void {
    for (let i = stored.length - 1; i >= 0; i--) {
      const message = stored[i]!;
      if (message.receivedAt.getTime() >= this.since) this.push({ inbox_id: message.inboxId, message_id: message.id, seq: message.streamSeq ?? "0" });
    }
  }

  shift(): ArrivalEvent | undefined {
    return this.events?.shift();
  }

  leave(): void {
    this.left = true;
    this.wake();
  }

  /** Resolves on the next arrival, `leave`, or after `ms`; at once if the wait has been left. */
  next(ms: number): Promise<void> {
    // A client that left while an arrival was being checked must not hold its slot till the deadline.
    if (this.left) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.timer = setTimeout(() => this.wake(), ms);
    });
  }

  private wake(): void {
    const resolve = this.waiting;
    if (resolve === null) return;
    this.waiting = null;
    clearTimeout(this.timer);
    resolve();
  }
}

/** A matched wait's reply: the arrival's shared view, encoded once, and its own waited_ms. */
async function matchedReply(record: MessageRecord, options: ViewOptions, startedAt: number) {
  const view = await sharedView(record, options);
  return { status: 200 as const, body: matchedBody(view, Date.now() - startedAt) };
}

/**
 * POST /v1/messages/wait. The inbox's arrivals are subscribed to before stored messages are
 * read, so a message stored in between still ends the wait (no lost wake-up). With `match`
 * (even `{}`) the newest stored match returns at once; without it only a new arrival counts.
 * Each arrival is checked with the same SQL as the list filters, one query per arrival. A
 * timeout is a 200 with a hint naming the predicate that failed.
 */
export const waitRoute = ({ db, config, logger, blobs, bus, slots, shutdown }: WaiterDeps) => {
  const held = new HeldWaits(db, bus, logger);
  return publicRoute("waitForMessage", async ({ auth, body, res, requestId }) => {
    const startedAt = Date.now();
    const inbox = await requireInbox(db, auth.project.id, body.inbox);
    const filter = { ...messageFilterFrom(body.match ?? {}), inboxId: inbox.id };
    // The 402 rule for waits (usage allowances) plugs in here; its issue is not filed yet.
    const slot = await slots.acquire(auth.project.id, auth.project.maxConcurrentWaits);
    if (slot === null) {
      throw new MailstopError("concurrency_limit", `This project already has ${auth.project.maxConcurrentWaits} blocking waits in flight.`, {
        retryAfterSeconds: CONCURRENCY_RETRY_SECONDS,
        details: { limit: auth.project.maxConcurrentWaits },
      });
    }
    const arrivals = new ArrivalQueue(body.match === undefined ? startedAt : startedAt - RECHECK_LOOKBACK_MS);
    const leave = arrivals.leave.bind(arrivals);
    const view: ViewOptions = { formats: body.format ?? [], previewChars: body.preview_chars, origin: config.http.publicUrl, blobs };
    // Everything taken from here on, the slot first, is given back in the one `finally` below,
    // even when the subscribe fails (the Redis bus gives up after 5 s).
    let unsubscribe: (() => Promise<void>) | undefined;
    let forgetShutdown: (() => void) | undefined;
    // Held before it subscribes: a resubscribe from then on has it look at what was stored.
    const forgetHeld = held.hold(auth.project.id, inbox.id, arrivals);
    try {
      unsubscribe = await bus.subscribeArrivals(inbox.id, (event) => arrivals.push(event));
      res.once("close", leave);
      // A waiter going down ends its waits at once, so the HTTP listener can close without
      // cutting them; the client retries (to another waiter in a fleet).
      forgetShutdown = onAbort(shutdown, leave);
      if (body.match !== undefined) {
        const [stored] = await listReadableMessages(db, auth.project.id, filter, { beforeSeq: null, limit: 1 });
        if (stored) return await matchedReply(stored, view, startedAt);
      }
      const deadline = startedAt + body.timeout_ms;
      let nonMatching = 0;
      let lastMismatch: Mismatch | null = null;
      while (!arrivals.left && !shutdown.aborted && Date.now() < deadline) {
        for (let event = arrivals.shift(); event !== undefined; event = arrivals.shift()) {
          const hit = await arrivalMatching(db, auth.project.id, filter, event.message_id);
          if (hit) return await matchedReply(hit, view, startedAt);
          const missed = await arrivalReadable(db, auth.project.id, event.message_id);
          // Tombstoned or not yet visible: it was never a candidate.
          if (missed === null) continue;
          nonMatching += 1;
          lastMismatch = explainMismatch(missed, body.match ?? {}) ?? lastMismatch;
        }
        await arrivals.next(Math.max(0, deadline - Date.now()));
      }
      if (shutdown.aborted) throw shuttingDown();
      const completedAt = Date.now();
      const waitedMs = completedAt - startedAt;
      return {
        status: 200,
        body: {
          status: "timeout",
          waited_ms: waitedMs,
          inbox: inbox.address,
          non_matching_arrivals: nonMatching,
          hint: timeoutHint(inbox.address, waitedMs, nonMatching, lastMismatch),
          reason: nonMatching === 0 ? "no_arrivals" : "no_matching_arrivals",
          request_id: requestId,
          started_at: new Date(startedAt).toISOString(),
          completed_at: new Date(completedAt).toISOString(),
        },
      };
    } finally {
      res.off("close", leave);
      forgetShutdown?.();
      forgetHeld();
      await Promise.all([unsubscribe?.(), slot.release()]);
    }
  });
};

