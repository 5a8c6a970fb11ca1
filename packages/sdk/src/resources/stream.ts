import { EventSourceParserStream } from "eventsource-parser/stream";
import { MailstopError } from "../errors.js";
import type { Http } from "../http.js";
import { sleep } from "../retry.js";
import type { StreamMessage } from "../types.js";

export interface StreamOptions {
  /** Resume after this cursor (a {@link StreamMessage}'s `cursor`) instead of starting fresh. */
  lastEventId?: string;
  /** Ends the iteration (as `break` does). */
  signal?: AbortSignal;
  /** Reconnections in a row that may fail before the iterator throws; default the client's `maxAttempts`. */
  maxReconnects?: number;
}

/** The delay before a reconnect when the server has not set one with `retry:` (it opens with `retry: 1000`). */
const DEFAULT_RETRY_MS = 1000;

/**
 * An inbox's arrivals as an async iterator of `message` frames. When the server closes the
 * stream (`closed`: `max_duration`, `slow_consumer`, `token_expired`, `read_failed`) or the
 * connection drops, it reconnects after the server's `retry` delay with `Last-Event-ID` set to
 * the last cursor, so no message is missed or repeated. `break` (or `return`, or `signal`)
 * closes the connection. A refusal (401, 403, 404) throws its {@link MailstopError}, as does an
 * `error` frame.
 */
export async function* streamInbox(http: Http, inbox: string, options: StreamOptions = {}): AsyncGenerator<StreamMessage, void, undefined> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const url = `${http.options.baseUrl}/stream/v1/inboxes/${encodeURIComponent(inbox)}/events`;
  const maxFailures = options.maxReconnects ?? http.options.maxAttempts;
  let lastEventId = options.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  try {
    while (!controller.signal.aborted) {
      let response: Response;
      try {
        response = await http.options.fetch(url, {
          headers: { accept: "text/event-stream", ...http.auth(), ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) },
          signal: controller.signal,
        });
      } catch (cause) {
        if (controller.signal.aborted) return;
        if (++failures >= maxFailures) throw MailstopError.network(cause, url);
        await sleep(retryMs, controller.signal);
        continue;
      }
      if (!response.ok || response.body === null) {
        const error = MailstopError.fromResponse(response, await response.json().catch(() => undefined));
        if (!error.retryable || ++failures >= maxFailures) throw error;
        await sleep(error.retryAfterSeconds === undefined ? retryMs : error.retryAfterSeconds * 1000, controller.signal);
        continue;
      }
      const frames = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(
        new EventSourceParserStream({ onRetry: (ms) => (retryMs = ms) }),
      );
      try {
        for await (const frame of frames) {
          if (frame.event === "open") failures = 0;
          else if (frame.event === "message") {
            // The cursor moves before the yield: a consumer that breaks here has seen this one.
            if (frame.id !== undefined && frame.id !== "") lastEventId = frame.id;
            yield { ...(JSON.parse(frame.data) as Omit<StreamMessage, "cursor">), cursor: frame.id ?? "" };
          } else if (frame.event === "error") {
            throw MailstopError.fromResponse(response, JSON.parse(frame.data));
          }
          // `closed` needs nothing: the server ends the response after it and the loop reconnects.
        }
      } catch (cause) {
        if (cause instanceof MailstopError || controller.signal.aborted) throw cause;
        // The connection dropped mid-stream: reconnect from the last cursor.
        if (++failures >= maxFailures) throw MailstopError.network(cause, url);
      }
      await sleep(retryMs, controller.signal);
    }
  } catch (cause) {
    if (controller.signal.aborted && !(cause instanceof MailstopError)) return;
    throw cause;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    // Closes the connection when the consumer breaks out of its loop.
    controller.abort();
  }
}
