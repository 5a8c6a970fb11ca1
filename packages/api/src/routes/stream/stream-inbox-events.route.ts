import type { Request } from "express";
import { MailstopError, asMailstopError } from "@mailstop/core";
import { type Db, type Inbox, type StreamMessageRow, latestStreamSeq, listStreamMessages } from "@mailstop/db";
import type { AuthContext } from "@mailstop/http";
import { type WaiterDeps, streamRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";
import { type ClosedReason, SseResponse } from "../../stream/sse-response";
import { decodeStreamCursor, encodeStreamCursor } from "../../stream/stream-cursor";
import { onAbort } from "../../stream/on-abort";
import { StreamFollower } from "../../stream/stream-follower";
import { toStreamMessage } from "../../stream/stream-message";

/** Rows per read; a resume after a long absence reads the backlog in pages of this size. */
const PAGE_SIZE = 100;

/**
 * The `closed` reason of a stream ended because its waiter shuts down. The four reasons are
 * a closed set; "the server ends this connection now; reconnect" is what `max_duration`
 * already tells a client (docs/decisions.md "The event stream"; docs/waits-and-streams.md
 * "Why a stream closes, and what to do").
 */
const SHUTDOWN_REASON: ClosedReason = "max_duration";

/** The inbox the path names; with a stream token it must be the token's own inbox. */
async function streamedInbox(db: Db, auth: AuthContext, reference: string, sharedDomain: string): Promise<Inbox> {
  const token = auth.streamToken;
  if (token !== undefined && reference !== token.inbox.id && reference.toLowerCase() !== token.inbox.address) {
    throw new MailstopError("unauthenticated", "This stream token opens another inbox's stream; mint one for this inbox.");
  }
  return requireInbox(db, auth.project.id, reference, { projectKey: auth.project.key, sharedDomain });
}

/** The resume point: the `Last-Event-ID` header a browser sends on reconnect wins over the query it first opened with. */
function resumePoint(req: Request, query: { last_event_id?: string }): string | null {
  const header = req.headers["last-event-id"];
  return decodeStreamCursor(typeof header === "string" && header !== "" ? header : query.last_event_id);
}

/**
 * GET /stream/v1/inboxes/{id}/events. Arrivals are subscribed to before the starting cursor is
 * read, so nothing committed in between is missed; each arrival then costs one query (every
 * message after the last one sent) and nothing happens between arrivals but heartbeats.
 */
export const streamInboxEventsRoute = ({ db, config, logger, bus, shutdown, metrics }: WaiterDeps) => {
  // Arrivals published while the bus was away reached no stream: each open one reads after
  // its cursor once the bus listens again, as it does on an arrival.
  const open = new Set<StreamFollower<StreamMessageRow>>();
  metrics?.countStreamsWith(() => open.size);
  bus.onResubscribed(() => {
    for (const follower of open) follower.poke();
  });
  return streamRoute("streamInboxEvents", async ({ auth, params, query, req, res, requestId }) => {
    const inbox = await streamedInbox(db, auth, params.id, config.sharedDomain);
    // Usage allowances (402 `quota_exceeded`, not built yet: docs/api.md "Rate classes") would
    // refuse a stream here, before it holds anything, as for waits.
    const projectId = auth.project.id;
    const resumeAfter = resumePoint(req, query);
    const sse = new SseResponse(res, { requestId, heartbeatMs: config.stream.heartbeatSeconds * 1000, logger });
    let follower: StreamFollower<StreamMessageRow> | undefined;
    const unsubscribe = await bus.subscribeArrivals(inbox.id, () => follower?.poke());
    // Per stream, for as long as it is open (10,000 at a time on a waiter): one timer, and
    // methods rather than named arrow functions, which tsx gives a property table each.
    let closing: NodeJS.Timeout | undefined;
    let forgetShutdown: (() => void) | undefined;
    try {
      const start = resumeAfter ?? (await latestStreamSeq(db, projectId, inbox.id));
      follower = new StreamFollower(start, {
        read(after) {
          return listStreamMessages(db, projectId, inbox.id, after, PAGE_SIZE);
        },
        cursorOf(row) {
          return row.stream_seq;
        },
        emit(row) {
          return sse.send("message", toStreamMessage(row), encodeStreamCursor(row.stream_seq));
        },
        fail(error) {
          const failure = asMailstopError(error);
          logger.error({ err: failure.cause ?? failure, request_id: requestId, inbox_id: inbox.id }, "event stream read failed");
          sse.fail(failure, "read_failed");
        },
        pageSize: PAGE_SIZE,
      });
      open.add(follower);
      sse.start();
      // The backlog of a resume follows the open frame; live arrivals wait behind both.
      void sse.send("open", { inbox: inbox.id, resumed_from: resumeAfter === null ? null : encodeStreamCursor(resumeAfter) });
      if (resumeAfter !== null) follower.poke();

      // The stream closes at its maximum duration, or when its token expires if that is sooner.
      const maxDurationAt = Date.now() + config.stream.maxDurationSeconds * 1000;
      const tokenExpiresAt = auth.streamToken?.expiresAt.getTime() ?? Number.POSITIVE_INFINITY;
      const reason: ClosedReason = tokenExpiresAt < maxDurationAt ? "token_expired" : "max_duration";
      closing = setTimeout(() => sse.close(reason), Math.min(maxDurationAt, tokenExpiresAt) - Date.now());
      // A waiter going down says so before it ends the stream, so the client reconnects at once.
      forgetShutdown = onAbort(shutdown, () => sse.close(SHUTDOWN_REASON));
      if (shutdown.aborted) sse.close(SHUTDOWN_REASON);
      await sse.done;
    } finally {
      if (follower !== undefined) open.delete(follower);
      follower?.stop();
      clearTimeout(closing);
      forgetShutdown?.();
      await unsubscribe();
    }
    return undefined;
  });
};
