import { once } from "node:events";
import type { Logger } from "@mailstop/logging";
import type { Redis } from "ioredis";
import { type ArrivalEvent, CHANNELS, type CredentialChange, checkArrivalEvent, checkCredentialChange } from "./catalog";
import type { Bus, CredentialChangeListener } from "./bus";

/** How long a subscribe waits for the subscriber connection before it fails (retryable). */
const SUBSCRIBER_READY_TIMEOUT_MS = 5000;

/**
 * The Bus on Redis pub/sub. One subscriber connection per process serves every subscription;
 * a channel is subscribed once however many local handlers listen to it. Pub/sub keeps
 * nothing for an absent subscriber: when the connection drops (a Redis restart, `CLIENT
 * KILL`, a network cut) ioredis reconnects, and what was published meanwhile is gone, so the
 * bus subscribes every channel again itself and then tells its `onResubscribed` listeners.
 * The credential channel's listeners are told of the drop as soon as it happens (`lost`), and
 * of the resubscribe (`resumed`), so a key cache never trusts what it may have missed.
 */
export class RedisBus implements Bus {
  private readonly handlers = new Map<string, Set<(event: ArrivalEvent) => void>>();
  /** The SUBSCRIBE of each channel, awaited by every subscriber so none returns before it is live. */
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private subscriber: Redis | undefined;
  private readonly resubscribedListeners = new Set<() => void>();
  /** The subscriber connection closed since it was last ready: its next ready is a resubscribe. */
  private dropped = false;
  private readonly credentialListeners = new Set<CredentialChangeListener>();
  /** The SUBSCRIBE of the credential channel while anyone watches it. */
  private credentialsSubscribed: Promise<unknown> | undefined;

  constructor(
    private readonly publisher: Redis,
    private readonly createSubscriber: () => Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  private channel(inboxId: string): string {
    return `${this.prefix}:${CHANNELS.inboxArrivals(inboxId)}`;
  }

  async publishArrival(event: ArrivalEvent): Promise<void> {
    await this.publisher.publish(this.channel(event.inbox_id), JSON.stringify(event));
  }

  private get credentialChannel(): string {
    return `${this.prefix}:${CHANNELS.credentialChanges}`;
  }

  /** Calls `notify` on every credential listener; one listener's failure must not keep the news from the others. */
  private tellCredentialListeners(notify: (listener: CredentialChangeListener) => void): void {
    for (const listener of [...this.credentialListeners]) {
      try {
        notify(listener);
      } catch {
        // See above.
      }
    }
  }

  async publishCredentialChange(change: CredentialChange): Promise<void> {
    // Heard here first, whatever becomes of the PUBLISH: this process's own echo comes back too.
    this.tellCredentialListeners((listener) => listener.changed({ ...change }));
    await this.publisher.publish(this.credentialChannel, JSON.stringify(change));
  }

  async watchCredentialChanges(listener: CredentialChangeListener): Promise<() => Promise<void>> {
    this.credentialListeners.add(listener);
    this.credentialsSubscribed ??= this.readySubscriber().then((subscriber) => subscriber.subscribe(this.credentialChannel));
    try {
      await this.credentialsSubscribed;
    } catch (error) {
      this.credentialListeners.delete(listener);
      if (this.credentialListeners.size === 0) this.credentialsSubscribed = undefined;
      throw error;
    }
    return async () => {
      if (!this.credentialListeners.delete(listener) || this.credentialListeners.size > 0) return;
      this.credentialsSubscribed = undefined;
      // Not while the connection is down: the command would wait in its offline queue for
      // Redis, holding up a shutdown. A dropped connection has no subscription to end anyway.
      if (this.subscriber?.status === "ready") await this.subscriber.unsubscribe(this.credentialChannel);
    };
  }

  private ensureSubscriber(): Redis {
    if (!this.subscriber) {
      const subscriber = this.createSubscriber();
      subscriber.on("message", (channel: string, message: string) => {
        if (channel === this.credentialChannel) {
          const change = this.credentialChangeIn(message);
          if (change !== null) this.tellCredentialListeners((listener) => listener.changed({ ...change }));
          return;
        }
        const listeners = this.handlers.get(channel);
        if (!listeners) return;
        const event = this.arrivalIn(channel, message);
        if (event === null) return;
        for (const listener of listeners) {
          try {
            listener(event);
          } catch {
            // One listener's failure must not keep the arrival from the others.
          }
        }
      });
      subscriber.on("close", () => {
        this.dropped = true;
        this.tellCredentialListeners((listener) => listener.lost());
      });
      subscriber.on("ready", () => {
        if (!this.dropped) return;
        this.dropped = false;
        void this.resubscribe(subscriber);
      });
      this.subscriber = subscriber;
    }
    return this.subscriber;
  }

  /**
   * The arrival a message on `channel` carries, or null when it carries none: whoever published
   * it (another process, another version), a malformed event is logged and dropped, never handed
   * to a subscriber.
   */
  private arrivalIn(channel: string, message: string): ArrivalEvent | null {
    let value: unknown;
    try {
      value = JSON.parse(message);
    } catch {
      this.logger.warn({ channel, problem: "not JSON" }, "malformed arrival event dropped");
      return null;
    }
    const { event, problem } = checkArrivalEvent(value);
    if (problem !== null) this.logger.warn({ channel, problem }, "malformed arrival event dropped");
    return event;
  }

  /** The credential change a message carries, or null (logged and dropped) when it carries none. */
  private credentialChangeIn(message: string): CredentialChange | null {
    let value: unknown;
    try {
      value = JSON.parse(message);
    } catch {
      value = undefined;
    }
    const { change, problem } = checkCredentialChange(value);
    if (problem !== null) this.logger.warn({ channel: this.credentialChannel, problem }, "malformed credential change dropped");
    return change;
  }

  /**
   * Subscribes every channel again on a connection that came back, and once they are live
   * tells the listeners. ioredis resubscribes too, but says nothing when it is done; a second
   * SUBSCRIBE of a channel is harmless. If the connection drops again first, its next ready
   * does this again.
   */
  private async resubscribe(subscriber: Redis): Promise<void> {
    const channels = [...this.handlers.keys(), ...(this.credentialListeners.size > 0 ? [this.credentialChannel] : [])];
    try {
      if (channels.length > 0) await subscriber.subscribe(...channels);
    } catch {
      return;
    }
    this.tellCredentialListeners((listener) => listener.resumed());
    for (const listener of [...this.resubscribedListeners]) {
      try {
        listener();
      } catch {
        // One listener's failure must not keep the news from the others.
      }
    }
  }

  onResubscribed(listener: () => void): () => void {
    this.resubscribedListeners.add(listener);
    return () => {
      this.resubscribedListeners.delete(listener);
    };
  }

  /**
   * The subscriber once its connection is ready. A SUBSCRIBE sent while ioredis still runs its
   * ready check (INFO) puts the connection in subscriber mode first, and the check then fails
   * with "Connection in subscriber mode": the first wait of a new process answered 500.
   */
  private async readySubscriber(): Promise<Redis> {
    const subscriber = this.ensureSubscriber();
    if (subscriber.status !== "ready") await once(subscriber, "ready", { signal: AbortSignal.timeout(SUBSCRIBER_READY_TIMEOUT_MS) });
    return subscriber;
  }

  async subscribeArrivals(inboxId: string, handler: (event: ArrivalEvent) => void): Promise<() => Promise<void>> {
    const channel = this.channel(inboxId);
    let listeners = this.handlers.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.handlers.set(channel, listeners);
      this.subscribed.set(
        channel,
        this.readySubscriber().then((subscriber) => subscriber.subscribe(channel)),
      );
    }
    listeners.add(handler);
    try {
      await this.subscribed.get(channel);
    } catch (error) {
      // A failed SUBSCRIBE must not leave the channel looking subscribed to later callers.
      listeners.delete(handler);
      if (listeners.size === 0) {
        this.handlers.delete(channel);
        this.subscribed.delete(channel);
      }
      throw error;
    }
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.subscribed.delete(channel);
      await this.subscriber?.unsubscribe(channel);
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.resubscribedListeners.clear();
    this.credentialListeners.clear();
    if (this.subscriber) await this.subscriber.quit().catch(() => undefined);
  }
}
