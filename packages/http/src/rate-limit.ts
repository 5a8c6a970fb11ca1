import type { Response } from "express";
import { MailstopError } from "@mailstop/core";
import { RATE_WINDOW_SECONDS, type RateLimits } from "@mailstop/messaging";
import type { OperationSpec } from "@mailstop/openapi";
import type { AuthContext } from "./auth-context";

/** The request buckets of the keyed routes and the rates a project without its own gets. */
export interface RateLimitSettings {
  limits: RateLimits;
  /** Requests per second per key and class (MAILSTOP_RATE_LIMIT_READ and _WRITE). */
  defaults: { read: number; write: number };
}

/** Called right after authentication: takes the request's token or refuses it with `rate_limited`. */
export type RateLimitCheck = (auth: AuthContext | null, res: Response) => Promise<void>;

const unlimited: RateLimitCheck = async () => undefined;

/**
 * The check of one operation, built when it is mounted. Its class is the document's
 * `x-rate-class`: `read` and `write` draw on the key's bucket of that class, `exempt` (the
 * blocking wait) and the routes without a key (meta, content, admin) are never limited. A keyed
 * operation without a class fails here, at start-up. Every answer of a limited class carries
 * the RateLimit-* headers, a refusal also Retry-After (set by the error middleware). Without
 * settings (MAILSTOP_RATE_LIMITS=off) nothing is limited and no header is sent.
 */
export function rateLimitCheck(settings: RateLimitSettings | null, spec: OperationSpec, keyed: boolean): RateLimitCheck {
  if (!keyed) return unlimited;
  const rateClass = spec.rateClass;
  if (rateClass === undefined) throw new Error(`route ${spec.operationId} needs a key but its document gives no x-rate-class`);
  if (rateClass === "exempt" || settings === null) return unlimited;
  return async (auth, res) => {
    if (auth === null) return;
    const perSecond = auth.project.rateLimits[rateClass] ?? settings.defaults[rateClass];
    const decision = await settings.limits.take(`${auth.key.id}:${rateClass}`, perSecond);
    const resetSeconds = Math.ceil(decision.resetMs / 1000);
    // The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers, the form
    // express-rate-limit's draft-6 headers send): the bucket, what is left, seconds to refill.
    res.setHeader("RateLimit-Policy", `${decision.limit};w=${RATE_WINDOW_SECONDS}`);
    res.setHeader("RateLimit-Limit", String(decision.limit));
    res.setHeader("RateLimit-Remaining", String(decision.remaining));
    res.setHeader("RateLimit-Reset", String(resetSeconds));
    if (decision.allowed) return;
    const retryAfterSeconds = Math.max(1, resetSeconds);
    throw new MailstopError(
      "rate_limited",
      `This key made more ${rateClass} requests than its limit of ${perSecond} per second (bursts of ${decision.limit}); retry in ${retryAfterSeconds} s. ` +
        "Polling for new mail? POST /v1/messages/wait blocks until a matching message arrives and is never rate limited.",
      { retryAfterSeconds, details: { rate_class: rateClass, limit: perSecond } },
    );
  };
}
