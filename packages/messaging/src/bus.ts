import type { ArrivalEvent, CredentialChange } from "./catalog";

/**
 * What a process's API-key cache hears from the bus (see {@link Bus.watchCredentialChanges}).
 * Each call may come more than once; each must be cheap and must not throw.
 */
export interface CredentialChangeListener {
  /** A committed change, published by any process (this one included). */
  changed(change: CredentialChange): void;
  /** The bus stopped hearing changes (its connection dropped): what is published from now on reaches no one here. */
  lost(): void;
  /** The bus hears changes again; what was published while it was lost is gone. */
  resumed(): void;
}

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
  /**
   * Announces a committed credential change to every process. This process's listeners have
   * heard it when the call returns, even when it then fails to reach the others (it rejects).
   */
  publishCredentialChange(change: CredentialChange): Promise<void>;
  /**
   * Tells `listener` of every credential change, and when the bus stops and starts hearing
   * them, once the subscription is live; until the returned function is called.
   */
  watchCredentialChanges(listener: CredentialChangeListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
