import type { Logger } from "@mailstop/logging";
import { type ArrivalEvent, type CredentialChange, checkArrivalEvent, checkCredentialChange } from "./catalog";
import type { Bus, CredentialChangeListener } from "./bus";
import { GREYLIST, type Greylist } from "./greylist";
import type { WaitSlot, WaitSlots } from "./wait-slots";

/**
 * The Bus of the monolith without Redis: its publishers and subscribers share one process, so
 * an arrival is handed to the inbox's handlers directly.
 */
export class InProcessBus implements Bus {
  private readonly handlers = new Map<string, Set<(event: ArrivalEvent) => void>>();
  private readonly credentialListeners = new Set<CredentialChangeListener>();

  constructor(private readonly logger: Logger) {}

  async publishArrival(published: ArrivalEvent): Promise<void> {
    // Checked as the Redis bus checks what it receives: a malformed event reaches no subscriber.
    const { event, problem } = checkArrivalEvent(published);
    if (problem !== null) {
      this.logger.warn({ problem }, "malformed arrival event dropped");
      return;
    }
    const listeners = this.handlers.get(event.inbox_id);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        // Each listener gets its own copy, as each Redis subscriber parses its own.
        listener({ ...event });
      } catch {
        // One listener's failure must not keep the arrival from the others.
      }
    }
  }

  async subscribeArrivals(inboxId: string, handler: (event: ArrivalEvent) => void): Promise<() => Promise<void>> {
    let listeners = this.handlers.get(inboxId);
    if (!listeners) {
      listeners = new Set();
      this.handlers.set(inboxId, listeners);
    }
    listeners.add(handler);
    return async () => {
      const current = this.handlers.get(inboxId);
      if (current?.delete(handler) && current.size === 0) this.handlers.delete(inboxId);
    };
  }

  /** Publishers and subscribers share the process: nothing can drop, so nothing is ever told. */
  onResubscribed(_listener: () => void): () => void {
    return () => undefined;
  }

  async publishCredentialChange(published: CredentialChange): Promise<void> {
    const { change, problem } = checkCredentialChange(published);
    if (problem !== null) {
      this.logger.warn({ problem }, "malformed credential change dropped");
      return;
    }
    for (const listener of [...this.credentialListeners]) {
      try {
        listener.changed({ ...change });
      } catch {
        // One listener's failure must not keep the change from the others.
      }
    }
  }

  /** Never lost: publishers and listeners share the process. */
  async watchCredentialChanges(listener: CredentialChangeListener): Promise<() => Promise<void>> {
    this.credentialListeners.add(listener);
    return async () => {
      this.credentialListeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.credentialListeners.clear();
  }
}

/**
 * The wait allowance of the monolith without Redis: one process holds every wait, so a count
 * per project is exact, and a slot is released with its wait (or with the process).
 */
export class InProcessWaitSlots implements WaitSlots {
  private readonly held = new Map<string, number>();

  async acquire(projectId: string, limit: number): Promise<WaitSlot | null> {
    const count = this.held.get(projectId) ?? 0;
    if (count >= limit) return null;
    this.held.set(projectId, count + 1);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const left = (this.held.get(projectId) ?? 1) - 1;
        if (left === 0) this.held.delete(projectId);
        else this.held.set(projectId, left);
      },
    };
  }
}

/**
 * The greylist of the monolith on embedded stand-ins: the same rule kept in this process's
 * memory. Pairs are forgotten after `rememberMs`, swept as new pairs arrive, so the map stays
 * bounded by the pairs seen in the last four hours.
 */
export class InProcessGreylist implements Greylist {
  private readonly firstSeen = new Map<string, number>();
  private nextSweep = 0;

  async refuses(sender: string, recipient: string, now = Date.now()): Promise<boolean> {
    this.sweep(now);
    const pair = `${sender.toLowerCase()}\n${recipient.toLowerCase()}`;
    const seenAt = this.firstSeen.get(pair);
    if (seenAt === undefined || now - seenAt >= GREYLIST.rememberMs) {
      this.firstSeen.set(pair, now);
      return true;
    }
    return now - seenAt < GREYLIST.retryAfterMs;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + GREYLIST.rememberMs / 4;
    for (const [pair, seenAt] of this.firstSeen) if (now - seenAt >= GREYLIST.rememberMs) this.firstSeen.delete(pair);
  }
}
