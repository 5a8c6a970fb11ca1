import { type MessageRecord, listReadableMessages } from "@mailstop/db";
import { MailstopError, limitError, restarting } from "@mailstop/core";
import { type WaiterDeps, publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";
import { type Mismatch, type StoredMiss, explainMismatch, timeoutHint } from "../../messages/explain-mismatch";
import { type MessageMatch, messageFilterFrom } from "../../messages/message-filter";
import type { ViewOptions } from "../../messages/message.view";
import { onAbort } from "../../stream/on-abort";
import type { ArrivalChecks } from "../../waits/arrival-checks";
import { ArrivalQueue } from "../../waits/arrival-queue";
import { HeldWaits } from "../../waits/held-waits";
import { matchedBody } from "../../waits/matched-body";

/** What a held wait gets when its waiter shuts down (see restarting). */
const shuttingDown = restarting;

/**
 * How long before its start a wait with `match` still takes a message found by a re-check
 * after a bus drop: one received just before the wait began may have been stored (and its
 * arrival lost) after the wait's own first look. A wait without `match` counts only messages
 * received once it began, as it always does.
 */
const RECHECK_LOOKBACK_MS = 60_000;

/** When a client refused for concurrency should try again. */
const CONCURRENCY_RETRY_SECONDS = 1;

/** A matched wait's reply: the arrival's shared view and its own waited_ms. */
async function matchedReply(checks: ArrivalChecks, record: MessageRecord, options: ViewOptions, startedAt: number) {
  const view = await checks.view(record, options);
  return { status: 200 as const, body: matchedBody(view, Date.now() - startedAt) };
}

/** The inbox's newest readable message and the predicate of `match` it fails, or null when the inbox is empty. */
async function newestStoredMiss(db: WaiterDeps["db"], projectId: string, inboxId: string, match: MessageMatch): Promise<StoredMiss | null> {
  const [newest] = await listReadableMessages(db, projectId, { ...messageFilterFrom({}), inboxId }, { beforeSeq: null, limit: 1 });
  return newest === undefined ? null : { subject: newest.subject, mismatch: explainMismatch(newest, match) };
}

/**
 * POST /v1/messages/wait. The inbox's arrivals are subscribed to before stored messages are
 * read, so a message stored in between still ends the wait (no lost wake-up). With `match`
 * (even `{}`) the newest stored match returns at once; without it only a new arrival counts.
 * Each arrival is checked with the same SQL as the list filters, one query per arrival. A
 * timeout is a 200 with a hint naming the predicate that failed.
 */
export const waitRoute = ({ db, config, logger, blobs, bus, slots, shutdown, metrics }: WaiterDeps, checks: ArrivalChecks) => {
  const held = new HeldWaits(db, bus, logger);
  metrics?.countWaitsWith(() => held.size);
  return publicRoute("waitForMessage", async ({ auth, body, res, requestId }) => {
    const startedAt = Date.now();
    const inbox = await requireInbox(db, auth.project.id, body.inbox, { projectKey: auth.project.key, sharedDomain: config.sharedDomain });
    const filter = { ...messageFilterFrom(body.match ?? {}), inboxId: inbox.id };
    const view: ViewOptions = { formats: body.format ?? [], previewChars: body.preview_chars, origin: config.http.publicUrl, blobs };
    // The seam left in the wait for a spent allowance (docs/decisions.md "Usage, allowances and
    // organisation limits"): existing matches remain readable, so a wait with `match` still
    // returns its newest stored match; with none (or without `match`, which only takes a new
    // arrival) it is refused with the 402 at once, never held and before it takes a slot.
    if (auth.spentLimit !== null) {
      const [stored] = body.match === undefined ? [] : await listReadableMessages(db, auth.project.id, filter, { beforeSeq: null, limit: 1 });
      if (stored) return await matchedReply(checks, stored, view, startedAt);
      throw limitError(auth.spentLimit);
    }
    const slot = await slots.acquire(auth.project.id, auth.project.maxConcurrentWaits);
    if (slot === null) {
      throw new MailstopError("concurrency_limit", `This project already has ${auth.project.maxConcurrentWaits} blocking waits in flight.`, {
        retryAfterSeconds: CONCURRENCY_RETRY_SECONDS,
        details: { limit: auth.project.maxConcurrentWaits },
      });
    }
    const arrivals = new ArrivalQueue(body.match === undefined ? startedAt : startedAt - RECHECK_LOOKBACK_MS);
    const leave = arrivals.leave.bind(arrivals);
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
        if (stored) return await matchedReply(checks, stored, view, startedAt);
      }
      const deadline = startedAt + body.timeout_ms;
      let nonMatching = 0;
      let lastMismatch: Mismatch | null = null;
      while (!arrivals.left && !shutdown.aborted && Date.now() < deadline) {
        for (let event = arrivals.shift(); event !== undefined; event = arrivals.shift()) {
          const hit = await checks.matching(auth.project.id, filter, event.message_id);
          if (hit) return await matchedReply(checks, hit, view, startedAt);
          const missed = await checks.readable(auth.project.id, event.message_id);
          // Tombstoned or not yet visible: it was never a candidate.
          if (missed === null) continue;
          nonMatching += 1;
          lastMismatch = explainMismatch(missed, body.match ?? {}) ?? lastMismatch;
        }
        await arrivals.next(Math.max(0, deadline - Date.now()));
      }
      if (shutdown.aborted) throw shuttingDown();
      // Only now, when the wait has failed: nothing new arrived, so the newest stored message (a
      // wait with `match` saw it and passed it over) is the likely one the test meant.
      const stored = nonMatching === 0 && body.match !== undefined ? await newestStoredMiss(db, auth.project.id, inbox.id, body.match) : null;
      const completedAt = Date.now();
      const waitedMs = completedAt - startedAt;
      return {
        status: 200,
        body: {
          status: "timeout",
          waited_ms: waitedMs,
          inbox: inbox.address,
          non_matching_arrivals: nonMatching,
          hint: timeoutHint(inbox.address, waitedMs, nonMatching, lastMismatch, stored),
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

