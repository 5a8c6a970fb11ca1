import type { ArrivalEvent } from "./catalog";

/** The pub/sub port: Redis, or in-process on the embedded stand-ins (docs/architecture.md "Ports and adapters"). */
export interface Bus {
  publishArrival(event: ArrivalEvent): Promise<void>;
  /** Calls `handler` for each arrival in the inbox until the returned function is called. */
  subscribeArrivals(inboxId: string, handler: (event: ArrivalEvent) => void): Promise<() => Promise<void>>;
  /**
   * Calls `listener` each time the bus listens again after it lost its subscriptions (a
   * dropped connection), once every subscribed inbox is live again: arrivals published in
   * between reached no one, so whoever waits on them should look at what was stored. Once
   * per resubscribe, however many inboxes are subscribed. Returns what forgets the listener.
   */
  onResubscribed(listener: () => void): () => void;
  close(): Promise<void>;
}
