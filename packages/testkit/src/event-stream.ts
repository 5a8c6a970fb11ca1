import { EventSource } from "eventsource";

/** One server-sent event as a client received it. */
export interface StreamFrame {
  event: string;
  /** The parsed JSON data. */
  data: any;
  /** The event's id, or the last id seen (what a reconnect would resume after). */
  id: string;
}

/** The frame kinds mailstop sends (docs/waits-and-streams.md "Frames"). */
const KINDS = ["open", "message", "closed", "error"] as const;

/**
 * A real EventSource client (npm `eventsource`) on an event stream, recording every frame.
 * It reconnects on its own after the server closes the stream, sending `Last-Event-ID`, as a
 * browser does; `connections` counts the opens.
 */
export class TestEventStream {
  readonly frames: StreamFrame[] = [];
  /** HTTP status of a refused connection (a non-200 answer ends the client). */
  failedStatus: number | undefined;
  connections = 0;
  private readonly source: EventSource;
  private readonly listeners = new Set<() => void>();

  constructor(url: string, options: { headers?: Record<string, string> } = {}) {
    const headers = options.headers ?? {};
    this.source = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
    });
    this.source.addEventListener("open", () => (this.connections += 1));
    this.source.addEventListener("error", (event) => {
      // The client's own connection errors share the name `error` with mailstop's frames.
      const code = (event as { code?: number }).code;
      if (code !== undefined && code !== 200) this.failedStatus = code;
      this.notify();
    });
    for (const kind of KINDS) {
      this.source.addEventListener(kind, (event) => {
        if (!("data" in event) || typeof event.data !== "string") return;
        this.frames.push({ event: kind, data: JSON.parse(event.data), id: (event as MessageEvent).lastEventId });
        this.notify();
      });
    }
  }

  framesOf(kind: (typeof KINDS)[number]): StreamFrame[] {
    return this.frames.filter((frame) => frame.event === kind);
  }

  /** Resolves once `predicate` holds over the frames so far; fails after `timeoutMs`. */
  until<T>(predicate: (frames: StreamFrame[]) => T | undefined | false, timeoutMs = 10_000, what = "frames"): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = predicate(this.frames);
        if (value === undefined || value === false) return false;
        cleanup();
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.frames.map((f) => f.event))} (status ${this.failedStatus})`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      const listener = () => void check();
      if (check()) return;
      this.listeners.add(listener);
    });
  }

  /** The next frame of `kind` after the ones already recorded. */
  next(kind: (typeof KINDS)[number], timeoutMs = 10_000): Promise<StreamFrame> {
    const seen = this.framesOf(kind).length;
    return this.until((frames) => frames.filter((frame) => frame.event === kind)[seen], timeoutMs, `a ${kind} frame`);
  }

  /** Resolves once the client gave up (a refused connection). */
  refused(timeoutMs = 10_000): Promise<number> {
    return this.until(() => this.failedStatus, timeoutMs, "a refused connection");
  }

  close(): void {
    this.source.close();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
