import type { ArrivalEvent } from "./catalog";

/** The pub/sub port (Redis here; in-process for the embedded target, issue 5). */
export interface Bus {
  publishArrival(event: ArrivalEvent): Promise<void>;
  /** Calls `handler` for each arrival in the inbox until the returned function is called. */
  subscribeArrivals(inboxId: string, handler: (event: ArrivalEvent) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
