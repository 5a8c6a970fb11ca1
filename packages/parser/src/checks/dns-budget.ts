import { Resolver } from "node:dns/promises";
import { DeadlineExceeded, withinDeadline } from "@mailstop/core";

/** Each DNS lookup of a message's checks waits at most this long (docs/decisions.md "Message checks"). */
export const DNS_LOOKUP_DEADLINE_MS = 5_000;
/** All the lookups of one message together, likewise. */
export const DNS_MESSAGE_DEADLINE_MS = 10_000;

/** The shape mailauth's resolver option takes: dns.promises.resolve's. */
export type DnsLookup = (name: string, rrtype: string) => Promise<string[][] | string[]>;

/**
 * One c-ares channel per set of servers, shared by every message's checks: a channel costs
 * milliseconds to hundreds of milliseconds to create (measured here: 250 ms each under load,
 * which made a new one per message the parser's bottleneck), a lookup on a live one well under
 * one. Its own timeout bounds a lookup nobody waits for any more.
 */
const channels = new Map<string, CachingChannel>();
function channelFor(servers: readonly string[] | null, lookupMs: number): CachingChannel {
  const key = `${lookupMs} ${servers?.join(",") ?? "system"}`;
  let channel = channels.get(key);
  if (channel === undefined) {
    const resolver = new Resolver({ timeout: lookupMs, tries: 1 });
    if (servers !== null) resolver.setServers([...servers]);
    channel = new CachingChannel(resolver);
    channels.set(key, channel);
  }
  return channel;
}

/** How long an answer (or a name's absence) is reused: a mail server's short cache, not the record's TTL. */
export const DNS_CACHE_MS = 60_000;
const CACHED_ABSENCE = new Set(["ENOTFOUND", "ENODATA"]);
const CACHE_ENTRIES = 10_000;

/**
 * A channel's answers, kept DNS_CACHE_MS (an absence too), and one lookup in flight per name and
 * type: the mail of one application comes from a few domains, so its SPF and DMARC records are
 * asked for again and again, and a resolver that sometimes stalls a second (seen here) would
 * hold a parser slot each time. Written by hand: the lookups are mailauth's, through its
 * resolver option, which takes a function, not a caching resolver library's interface.
 */
class CachingChannel {
  private readonly answers = new Map<string, { until: number; answer: Promise<string[][] | string[]> }>();

  constructor(private readonly resolver: Resolver) {}

  resolve(name: string, rrtype: string): Promise<string[][] | string[]> {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const now = Date.now();
    const kept = this.answers.get(key);
    if (kept !== undefined && kept.until > now) return kept.answer;
    const answer = this.resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
    if (this.answers.size >= CACHE_ENTRIES) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, { until: now + DNS_CACHE_MS, answer });
    // A failure that is not an absence (a timeout, a refused query) is not kept: the next message asks again.
    answer.catch((error: { code?: string }) => {
      if (!CACHED_ABSENCE.has(error?.code ?? "") && this.answers.get(key)?.answer === answer) this.answers.delete(key);
    });
    return answer;
  }
}

/**
 * A resolver for one message's checks: through `servers` (MAILSTOP_DNS_SERVERS) or the
 * system's, each lookup within `lookupMs` and all of them within `messageMs` of its creation.
 * A lookup past either deadline fails with code ETIMEOUT, which mailauth reports as temperror
 * (its own resolver has no deadline of its own but c-ares' retries). `close` stops waiting for
 * what is still in flight (the shared channel is left to other messages).
 */
export function budgetedResolver(
  servers: readonly string[] | null,
  deadlines: { lookupMs: number; messageMs: number } = { lookupMs: DNS_LOOKUP_DEADLINE_MS, messageMs: DNS_MESSAGE_DEADLINE_MS },
): { lookup: DnsLookup; close(): void } {
  const resolver = channelFor(servers, deadlines.lookupMs);
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
  return { lookup, close: () => undefined };
}
