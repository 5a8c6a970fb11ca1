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
