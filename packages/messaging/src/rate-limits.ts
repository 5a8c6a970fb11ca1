import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

/**
 * The window of every bucket, in seconds. A bucket of `rate` requests per second holds
 * `rate × RATE_WINDOW_SECONDS` tokens (the burst, twice the rate) and is full again
 * `RATE_WINDOW_SECONDS` after its first token of a window was taken.
 */
export const RATE_WINDOW_SECONDS = 2;

/** What taking one token from a bucket decided, with what the RateLimit-* headers report. */
export interface RateDecision {
  allowed: boolean;
  /** Tokens the bucket holds when full: `rate × RATE_WINDOW_SECONDS`. */
  limit: number;
  /** Tokens left after this one (0 when refused). */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * Per-key request buckets shared by every instance that uses the same store. Above this port
 * nothing knows whether the buckets live in Redis or in this process.
 */
export interface RateLimits {
  /** Takes one token from `bucket`, whose rate is `perSecond` (a positive integer). */
  take(bucket: string, perSecond: number): Promise<RateDecision>;
}

/*
 * The token bucket of docs/decisions.md "Rate limits" (burst twice the rate) expressed with rate-limiter-flexible:
 * `points = 2 × rate` over `duration = 2 s`. The library counts a window that opens at a bucket's
 * first request (its "enhanced fixed window", one atomic INCR script: one Redis round trip per
 * request), so a bucket holds 2 × rate tokens and gets them all back 2 s later: at most 2 × rate at
 * once after a quiet spell, rate per second sustained. Unlike a continuously refilled bucket, a
 * client that empties one window at its very end and the next at its start gets 4 × rate within a
 * moment, never more than that in any 2 s. BurstyRateLimiter was the other candidate: it consults
 * a second limiter (a second round trip) whenever the first is spent, and its sums do not give
 * "rate, burst twice the rate" exactly.
 */
abstract class WindowedRateLimits implements RateLimits {
  /** One limiter per bucket size, built on first use: limits are few (the default and the overrides). */
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  protected abstract limiter(points: number): RateLimiterAbstract;

  async take(bucket: string, perSecond: number): Promise<RateDecision> {
    const points = perSecond * RATE_WINDOW_SECONDS;
    let limiter = this.limiters.get(points);
    if (limiter === undefined) {
      limiter = this.limiter(points);
      this.limiters.set(points, limiter);
    }
    try {
      return decision(true, points, await limiter.consume(bucket));
    } catch (thrown) {
      // The library rejects with its result when the bucket is empty, with an Error when the store failed.
      if (thrown instanceof RateLimiterRes) return decision(false, points, thrown);
      throw thrown;
    }
  }
}

function decision(allowed: boolean, limit: number, result: RateLimiterRes): RateDecision {
  return { allowed, limit, remaining: result.remainingPoints, resetMs: Math.max(0, result.msBeforeNext) };
}

/**
 * Buckets in Redis, one key per bucket under `<prefix>:rate`, shared by every instance. Limiters
 * of different sizes share the key, so a project's new limit applies to the window in progress.
 * While Redis is unreachable each instance counts in its own memory (the library's insurance
 * limiter) instead of refusing or failing requests: the API's own store is PostgreSQL, and a
 * Redis outage should cost the precision of the limit, not the API.
 */
export class RedisRateLimits extends WindowedRateLimits {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
  }

  protected limiter(points: number): RateLimiterAbstract {
    const keyPrefix = `${this.prefix}:rate`;
    return new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix,
      points,
      duration: RATE_WINDOW_SECONDS,
      // Counted in memory at once while the connection is down, not after a failed command.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: RATE_WINDOW_SECONDS }),
    });
  }
}

/**
 * Buckets in this process's memory: the monolith on its stand-ins, whose one process serves
 * every request. Each bucket size has its own store, so a project's new limit starts with a full
 * bucket rather than applying to the window in progress.
 */
export class InProcessRateLimits extends WindowedRateLimits {
  protected limiter(points: number): RateLimiterAbstract {
    return new RateLimiterMemory({ keyPrefix: "rate", points, duration: RATE_WINDOW_SECONDS });
  }
}
