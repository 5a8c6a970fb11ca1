import type { MessageRecord } from "@mailstop/db";
import type { ArrivalEvent } from "@mailstop/messaging";
import type { HeldWait } from "./held-waits";

/**
 * Arrivals of one inbox, queued until the wait looks at them; `next` resolves on the next one,
 * on `leave`, or at the wait's deadline. A waiter holds 10,000 of these at a time, mostly
 * idle: the queue and its set of seen ids are made on the first arrival, and waiting keeps
 * one resolver and one timer, not a closure of its own (under tsx every named function also
 * carries a property table for its name).
 */
export class ArrivalQueue implements HeldWait {
  private events: ArrivalEvent[] | null = null;
  private seen: Set<string> | null = null;
  private waiting: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The client went away, or the waiter is shutting down. */
  left = false;

  constructor(readonly since: number) {}

  push(event: ArrivalEvent): void {
    this.seen ??= new Set();
    // A retried parse job announces its message again: each message is looked at once.
    if (this.seen.has(event.message_id)) return;
    this.seen.add(event.message_id);
    (this.events ??= []).push(event);
    this.wake();
  }

  /** Messages stored while the bus was away: each one received since this wait's bound is an arrival, oldest first. */
  recheck(stored: readonly MessageRecord[]): void {
    for (let i = stored.length - 1; i >= 0; i--) {
      const message = stored[i]!;
      if (message.receivedAt.getTime() >= this.since) this.push({ inbox_id: message.inboxId, message_id: message.id, seq: message.streamSeq ?? "0" });
    }
  }

  shift(): ArrivalEvent | undefined {
    return this.events?.shift();
  }

  leave(): void {
    this.left = true;
    this.wake();
  }

  /** Resolves on the next arrival, `leave`, or after `ms`; at once if the wait has been left. */
  next(ms: number): Promise<void> {
    // A client that left while an arrival was being checked must not hold its slot till the deadline.
    if (this.left) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.timer = setTimeout(() => this.wake(), ms);
    });
  }

  private wake(): void {
    const resolve = this.waiting;
    if (resolve === null) return;
    this.waiting = null;
    clearTimeout(this.timer);
    resolve();
  }
}
