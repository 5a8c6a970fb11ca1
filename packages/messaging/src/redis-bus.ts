import { once } from "node:events";
import type { Redis } from "ioredis";
import { type ArrivalEvent, CHANNELS } from "./catalog";
import type { Bus } from "./bus";

/** How long a subscribe waits for the subscriber connection before it fails (retryable). */
const SUBSCRIBER_READY_TIMEOUT_MS = 5000;

/**
 * The Bus on Redis pub/sub. One subscriber connection per process serves every subscription;
 * a channel is subscribed once however many local handlers listen to it.
 */
export class RedisBus implements Bus {
  private readonly handlers = new Map<string, Set<(event: ArrivalEvent) => void>>();
  /** The SUBSCRIBE of each channel, awaited by every subscriber so none returns before it is live. */
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private subscriber: Redis | undefined;

  constructor(
    private readonly publisher: Redis,
    private readonly createSubscriber: () => Redis,
    private readonly prefix: string,
  ) {}

  private channel(inboxId: string): string {
    return `${this.prefix}:${CHANNELS.inboxArrivals(inboxId)}`;
  }

  async publishArrival(event: ArrivalEvent): Promise<void> {
    await this.publisher.publish(this.channel(event.inbox_id), JSON.stringify(event));
  }

  private ensureSubscriber(): Redis {
    if (!this.subscriber) {
      const subscriber = this.createSubscriber();
      subscriber.on("message", (channel: string, message: string) => {
        const listeners = this.handlers.get(channel);
        if (!listeners) return;
        let event: ArrivalEvent;
        try {
          event = JSON.parse(message) as ArrivalEvent;
        } catch {
          return;
        }
        for (const listener of listeners) {
          try {
            listener(event);
          } catch {
            // One listener's failure must not keep the arrival from the others.
          }
        }
      });
      this.subscriber = subscriber;
    }
    return this.subscriber;
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
    if (this.subscriber) await this.subscriber.quit().catch(() => undefined);
  }
}
