import type { Response } from "express";
import { type MailstopError, toEnvelope } from "@mailstop/core";

/** Why the server ends a stream (SPEC.md "Event stream connection"); clients reconnect on each. */
export type ClosedReason = "token_expired" | "max_duration" | "slow_consumer" | "read_failed";

export interface SseOptions {
  requestId: string;
  heartbeatMs: number;
  /** Unsent bytes a client may hold up before it is cut off as a slow consumer. */
  maxBufferedBytes: number;
}

/** A client that stopped reading is given this long to take the `closed` frame, then dropped. */
const CLOSE_GRACE_MS = 2_000;
/** How long clients wait before reconnecting (SSE `retry:`); every `closed` reason asks for a reconnect. */
const RECONNECT_MS = 1_000;

/**
 * One server-sent-events response. Written by hand rather than with an SSE library: every
 * frame here is one line of JSON, so encoding is a template string, and what matters is the
 * backpressure bookkeeping behind `slow_consumer`, which those libraries keep out of reach.
 * Node buffers whatever the socket cannot take; once that exceeds `maxBufferedBytes` the
 * stream is closed, so a stalled client never makes the buffer grow without bound.
 */
export class SseResponse {
  private heartbeat: NodeJS.Timeout | undefined;
  private ending = false;
  /** Resolves once the response is finished or the client has gone. */
  readonly done: Promise<void>;

  constructor(
    private readonly res: Response,
    private readonly options: SseOptions,
  ) {
    this.done = new Promise((resolve) => res.once("close", () => resolve()));
    this.done.then(() => this.stopHeartbeat());
  }

  /** True once the stream is closing or its client has gone: nothing more is sent. */
  get ended(): boolean {
    return this.ending || this.res.destroyed || this.res.writableEnded;
  }

  /** Sends the headers and starts the heartbeats. */
  start(): void {
    this.res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      // nginx and similar proxies would otherwise hold frames back.
      "x-accel-buffering": "no",
      "x-request-id": this.options.requestId,
    });
    this.res.write(`retry: ${RECONNECT_MS}\n\n`);
    this.heartbeat = setInterval(() => this.write(": ping\n\n"), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Sends one event; false when the stream has ended (or just ended because the client lags). */
  send(event: "open" | "message", data: unknown, id?: string): boolean {
    return this.write(`${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Sends `closed` with its reason and ends the response. */
  close(reason: ClosedReason): void {
    if (this.ended) return;
    this.ending = true;
    this.stopHeartbeat();
    this.res.end(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
    // A client that is not reading never takes the last frame: drop it after a grace period.
    const drop = setTimeout(() => this.res.destroy(), CLOSE_GRACE_MS);
    drop.unref();
    this.done.then(() => clearTimeout(drop));
  }

  /** Sends `error` with the envelope, then `closed` with `reason`. */
  fail(error: MailstopError, reason: ClosedReason): void {
    if (this.ended) return;
    this.res.write(`event: error\ndata: ${JSON.stringify(toEnvelope(error))}\n\n`);
    this.close(reason);
  }

  /** Ends the response without a `closed` frame (the server is shutting down; clients reconnect). */
  end(): void {
    if (this.ended) return;
    this.ending = true;
    this.stopHeartbeat();
    this.res.end();
  }

  private write(chunk: string): boolean {
    if (this.ended) return false;
    this.res.write(chunk);
    if (this.res.writableLength > this.options.maxBufferedBytes) {
      this.close("slow_consumer");
      return false;
    }
    return true;
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
  }
}
