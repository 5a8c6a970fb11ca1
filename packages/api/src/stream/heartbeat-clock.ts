/** Something beaten on every tick of a clock: an open event stream. */
export interface Beating {
  beat(): void;
}

/**
 * One interval timer for every stream of the process that beats at the same rate, instead
 * of one per stream: a waiter holds 10,000 streams, and each timer is an object, a closure
 * and a place in Node's timer lists for the stream's whole life. A stream joins at any point
 * of the clock's period, so its first beat comes within one period of its start, not exactly
 * one period after it; every later beat is one period apart, as with a timer of its own. The
 * timer runs only while some stream is on it.
 */
export class HeartbeatClock {
  private readonly beating = new Set<Beating>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly everyMs: number) {}

  add(stream: Beating): void {
    this.beating.add(stream);
    this.timer ??= setInterval(() => this.tick(), this.everyMs);
  }

  delete(stream: Beating): void {
    if (!this.beating.delete(stream) || this.beating.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    // A stream that ends on its beat leaves the set while it is walked, which a Set allows.
    for (const stream of this.beating) {
      try {
        stream.beat();
      } catch {
        // One stream's failure must not cost the others their heartbeat.
      }
    }
  }
}

const clocks = new Map<number, HeartbeatClock>();

/** The process's clock for streams beating every `everyMs` (one per configured interval). */
export function heartbeatClock(everyMs: number): HeartbeatClock {
  let clock = clocks.get(everyMs);
  if (clock === undefined) {
    clock = new HeartbeatClock(everyMs);
    clocks.set(everyMs, clock);
  }
  return clock;
}
