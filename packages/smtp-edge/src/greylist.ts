import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/** How long a sender/recipient pair is remembered, and how soon a retry is accepted. */
export const GREYLIST = { rememberMs: 4 * 60 * 60 * 1000, retryAfterMs: 1000 } as const;

/** sim.greylist's memory of (sender, recipient) pairs, shared by every edge instance. */
export interface Greylist {
  /** True when this attempt must be refused: the first of its pair, or less than 1 s after it. */
  refuses(sender: string, recipient: string, now?: number): Promise<boolean>;
}

export class RedisGreylist implements Greylist {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async refuses(sender: string, recipient: string, now = Date.now()): Promise<boolean> {
    const pair = createHash("sha256").update(`${sender.toLowerCase()}\n${recipient.toLowerCase()}`).digest("hex");
    const key = `${this.prefix}:greylist:${pair}`;
    const first = await this.redis.set(key, String(now), "PX", GREYLIST.rememberMs, "NX");
    if (first === "OK") return true;
    const seenAt = Number(await this.redis.get(key));
    return now - seenAt < GREYLIST.retryAfterMs;
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
