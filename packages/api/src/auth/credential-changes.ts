import type { CredentialChange } from "@mailstop/messaging";
import type { ServiceDeps } from "../deps";

/**
 * Tells every instance's API-key cache of a committed change (docs/decisions.md "The API-key
 * cache"), before the admin call that made it returns: this instance forgets at once, the
 * others within a second. A publish that fails (Redis unreachable) is logged, not answered: the
 * change is committed, instances whose bus is down read every key from the database already,
 * and what is left is bounded by the cache's 5 s lifetime.
 */
export async function announceCredentialChange({ bus, logger }: Pick<ServiceDeps, "bus" | "logger">, change: CredentialChange): Promise<void> {
  try {
    await bus.publishCredentialChange(change);
  } catch (error) {
    logger.warn({ err: error, change }, "credential change not announced; other instances may accept the old state for up to 5 s");
  }
}
