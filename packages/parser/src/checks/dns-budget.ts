import { Resolver } from "node:dns/promises";
import { DeadlineExceeded, withinDeadline } from "@mailstop/core";

/** Each DNS lookup of a message's checks waits at most this long (docs/decisions.md "Message checks"). */
export const DNS_LOOKUP_DEADLINE_MS = 5_000;
/** All the lookups of one message together, likewise. */
export const DNS_MESSAGE_DEADLINE_MS = 10_000;

/** The shape mailauth's resolver option takes: dns.promises.resolve's. */
export type DnsLookup = (name: string, rrtype: string) => Promise<string[][] | string[]>;

/**
 * A resolver for one message's checks: through `servers` (MAILSTOP_DNS_SERVERS) or the
 * system's, each lookup within `lookupMs` and all of them within `messageMs` of its creation.
 * A lookup past either deadline fails with code ETIMEOUT, which mailauth reports as temperror
 * (its own resolver has no deadline of its own but c-ares' retries). `close` cancels what is
 * still in flight.
 */
export function budgetedResolver(
  servers: readonly string[] | null,
  deadlines: { lookupMs: number; messageMs: number } = { lookupMs: DNS_LOOKUP_DEADLINE_MS, messageMs: DNS_MESSAGE_DEADLINE_MS },
): { lookup: DnsLookup; close(): void } {
  const resolver = new Resolver({ timeout: deadlines.lookupMs, tries: 1 });
  if (servers !== null) resolver.setServers([...servers]);
  const endsAt = Date.now() + deadlines.messageMs;
  const timedOut = (name: string) => Object.assign(new Error(`DNS lookup of ${name} timed out`), { code: "ETIMEOUT" });
  const lookup: DnsLookup = async (name, rrtype) => {
    const left = Math.min(deadlines.lookupMs, endsAt - Date.now());
    if (left <= 0) throw timedOut(name);
    try {
      return (await withinDeadline(resolver.resolve(name, rrtype) as Promise<string[][] | string[]>, left, `DNS lookup of ${name}`)) as string[][] | string[];
    } catch (error) {
      throw error instanceof DeadlineExceeded ? timedOut(name) : error;
    }
  };
  return { lookup, close: () => resolver.cancel() };
}
