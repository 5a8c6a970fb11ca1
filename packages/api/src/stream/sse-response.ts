import type { Response } from "express";
import { type MailstopError, toEnvelope } from "@mailstop/core";
import type { Logger } from "@mailstop/logging";
import { type Beating, type HeartbeatClock, heartbeatClock } from "./heartbeat-clock";

/** Why the server ends a stream (docs/waits-and-streams.md "Why a stream closes"); clients reconnect on each. */
export type ClosedReason = "token_expired" | "max_duration" | "slow_consumer" | "read_failed";

export interface SseOptions {
  requestId: string;
  heartbeatMs: number;
  /** Says when a slow consumer is cut off: the one close the client's own code causes. */
  logger: Logger;
}

/** A client that stopped reading is given this long to take the `closed` frame, then dropped. */
const CLOSE_GRACE_MS = 2_000;
/** How long clients wait before reconnecting (SSE `retry:`); every `closed` reason asks for a reconnect. */
const RECONNECT_MS = 1_000;

/**
 * One server-sent-events response. Written by hand rather than with an SSE library: every
 * frame here is one line of JSON, so encoding is a template string, and what matters is the
 * backpressure, which those libraries keep out of reach.
 *
 * `send` waits for the socket to drain before it lets the next frame go, so a client that
 * reads slowly holds up the stream's reads (the messages wait in the database) instead of
 * growing a buffer here. A client that takes nothing for a whole heartbeat interval while a
 * frame waits is closed with `slow_consumer`. Heartbeats come from the process's one clock
 * for the interval (see HeartbeatClock), not from a timer per stream.
 */
export class SseResponse implements Beating {
  private heartbeat: HeartbeatClock | undefined;
  private ending = false;
  private drainedSinceBeat = true;
  /** Resolves once the response is finished or the client has gone. */
  readonly done: Promise<void>;

  constructor(
    private readonly res: Response,
    private readonly options: SseOptions,
  ) {
    this.done = new Promise((resolve) => res.once("close", () => resolve()));
    this.done.then(() => this.stopHeartbeat());
    res.on("drain", () => (this.drainedSinceBeat = true));
  }

  /** True once the stream is closing or its client has gone: nothing more is sent. */
  get ended(): boolean {
    return this.ending || this.res.destroyed || this.res.writableEnded;
  }

  /** Sends the headers and the reconnect delay, and starts the heartbeats. */
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
    this.heartbeat = heartbeatClock(this.options.heartbeatMs);
    this.heartbeat.add(this);
  }

  /**
   * Sends one event, resolving once the socket can take more. False when the stream has
   * ended and nothing more should be sent.
   */
  async send(event: "open" | "message", data: unknown, id?: string): Promise<boolean> {
    if (this.ended) return false;
    const frame = `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    if (!this.res.write(frame)) {
      await new Promise<void>((resolve) => {
        const settle = () => {
          this.res.off("drain", settle);
          this.res.off("close", settle);
          resolve();
        };
        this.res.on("drain", settle);
        this.res.on("close", settle);
      });
    }
    return !this.ended;
  }

  /** Sends `closed` with its reason and ends the response. */
  close(reason: ClosedReason): void {
    if (this.ended) return;
    this.ending = true;
    this.stopHeartbeat();
    this.res.end(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
    // A client that is not reading never takes the last frame: drop it after a grace period.
    const drop = setTimeout(() => this.res.destroy(), CLOSE_GRACE_MS);
    this.done.then(() => clearTimeout(drop));
  }

  /** Sends `error` with the envelope, then `closed` with `reason`. */
  fail(error: MailstopError, reason: ClosedReason): void {
    if (this.ended) return;
    this.res.write(`event: error\ndata: ${JSON.stringify(toEnvelope(error))}\n\n`);
    this.close(reason);
  }

  /** A heartbeat, unless frames are waiting: then a client that took nothing since the last beat is cut off. Called by the clock. */
  beat(): void {
    if (this.ended) return;
    if (this.res.writableNeedDrain) {
      if (!this.drainedSinceBeat) {
        this.options.logger.info({ request_id: this.options.requestId }, "event stream cut off: slow consumer");
        return this.close("slow_consumer");
      }
      this.drainedSinceBeat = false;
      return;
    }
    this.res.write(": ping\n\n");
  }

  private stopHeartbeat(): void {
    this.heartbeat?.delete(this);
    this.heartbeat = undefined;
  }
}
