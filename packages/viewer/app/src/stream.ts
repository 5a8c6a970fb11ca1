import type { Api, StreamToken } from "./api";

/** The fields of a `message` frame (docs/waits-and-streams.md "Frames"). */
export interface Arrival {
  id: string;
  inbox_id: string;
  received_at: string;
  subject: string | null;
  from: { address: string; name: string | null } | null;
}

/**
 * An inbox's event stream in an EventSource. A browser cannot set headers on EventSource, so
 * each connection opens with a stream token minted with the key (`POST …/stream-token`); the
 * stream URL is rebuilt on this page's origin (the token's `stream_url` names the server's
 * public URL, which may not be the address the browser used). When the stream closes (token
 * expired, max duration, a waiter restarting) it reconnects with a fresh token and the last
 * cursor, so nothing is missed or repeated.
 */
export class InboxStream {
  private source: EventSource | null = null;
  private cursor: string | null = null;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly api: Api,
    private readonly inboxId: string,
    private readonly onArrival: (arrival: Arrival) => void,
    private readonly onState: (state: "live" | "reconnecting") => void,
  ) {}

  /** Resolves once the stream is open (its `open` frame arrived), so later mail is seen. */
  async start(): Promise<void> {
    await this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = null;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let minted: StreamToken;
    try {
      minted = await this.api.json<StreamToken>("POST", `/v1/inboxes/${encodeURIComponent(this.inboxId)}/stream-token`);
    } catch {
      return this.retry();
    }
    if (this.stopped) return;
    const url = this.api.url(`/stream/v1/inboxes/${encodeURIComponent(this.inboxId)}/events`, {
      token: minted.token,
      last_event_id: this.cursor ?? undefined,
    });
    const source = new EventSource(url);
    this.source = source;
    await new Promise<void>((resolve) => {
      // The server's `open` frame (a MessageEvent), not the browser's own open event: the
      // stream's starting point is fixed by then.
      source.addEventListener("open", (event) => {
        if (!(event instanceof MessageEvent)) return;
        this.onState("live");
        resolve();
      });
      source.addEventListener("message", (event) => {
        if (event.lastEventId) this.cursor = event.lastEventId;
        this.onArrival(JSON.parse(event.data) as Arrival);
      });
      // `closed` ends every stream (token expiry, max duration); an error is a dropped
      // connection, a refused token or an `error` frame. Either way: a fresh token, resumed
      // from the cursor.
      const reconnect = () => {
        resolve();
        if (this.source !== source) return;
        source.close();
        this.source = null;
        this.retry();
      };
      source.addEventListener("closed", reconnect);
      source.addEventListener("error", reconnect);
    });
  }

  private retry(): void {
    if (this.stopped) return;
    this.onState("reconnecting");
    this.retryTimer = setTimeout(() => void this.connect(), 1000);
  }
}
