import { BlockedTarget, type ResolvedTarget, TargetGuard, allowedNetworks } from "./network-guard";
import { pinnedRequest } from "./pinned-request";

/** The links of one message a check requests: the first this many. */
export const LINK_CHECK_MAX_LINKS = 50;
/** How long one link may take, every hop and both methods included. */
export const LINK_CHECK_TIMEOUT_MS = 5_000;
/** How many links are requested at once. */
export const LINK_CHECK_CONCURRENCY = 4;
/** How many redirects a link may follow; the next one is `too_many_redirects`. */
export const LINK_CHECK_MAX_REDIRECTS = 5;

export type LinkError = "timeout" | "blocked_address" | "dns" | "connection" | "tls" | "too_many_redirects";

/** What one link answered (docs/api.md "Message checks", `links`). */
export interface LinkOutcome {
  /** The link as the message has it. */
  url: string;
  /** Its final answer is a 2xx. */
  ok: boolean;
  /** The status of the last answer; null when none came. */
  status_code: number | null;
  /** Redirects followed. */
  redirects: number;
  /** The last URL requested (or refused by the guard): the link itself, or where its redirects led. */
  final_url: string | null;
  error: LinkError | null;
}

export interface LinkCheckOutcome {
  status: "ok" | "broken";
  checked_at: string;
  results: LinkOutcome[];
}

/**
 * The guard of link checks: the webhooks' allow list and DNS servers (MAILSTOP_WEBHOOK_ALLOW_NETWORKS,
 * MAILSTOP_DNS_SERVERS), `http` and `https` in every environment (a link is only read, nothing
 * is sent that https must protect, and most mail still has http links).
 */
export function linkGuard(settings: { environment: string; allowNetworks: readonly string[] | null; dnsServers: readonly string[] | null }): TargetGuard {
  return new TargetGuard(allowedNetworks(settings.allowNetworks, settings.environment), ["http:", "https:"], settings.dnsServers);
}

/** A link's check ended early, for `reason`. */
class LinkFailed extends Error {
  constructor(readonly reason: LinkError) {
    super(reason);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** A HEAD refused: the same URL is asked again with GET. */
const HEAD_REFUSED = new Set([405, 501]);
/** OpenSSL's and node's TLS error codes (certificate checks, handshake failures, a plain-HTTP server on an https link). */
const TLS_ERROR = /CERT|SSL|TLS|SIGNATURE|ISSUER|^EPROTO$/;

const failureOf = (error: unknown, signal: AbortSignal): LinkError => {
  if (signal.aborted) return "timeout";
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  return TLS_ERROR.test(code) ? "tls" : "connection";
};

/** Rejects with `timeout` once `signal` aborts (for the guard's DNS lookup, which takes no signal). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new LinkFailed("timeout"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new LinkFailed("timeout"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One request; its answer's status and Location. No body is read: the connection closes once the headers are in. */
function ask(target: ResolvedTarget, method: "HEAD" | "GET", signal: AbortSignal): Promise<{ status: number; location: string | null }> {
  return new Promise((resolve, reject) => {
    const request = pinnedRequest(
      target,
      { method, agent: false, signal, headers: { "user-agent": "mailstop-link-check", accept: "*/*" } },
      (response) => {
        const location = response.headers.location;
        resolve({ status: response.statusCode ?? 0, location: typeof location === "string" ? location : null });
        response.destroy();
      },
    );
    request.on("error", (error) => reject(new LinkFailed(failureOf(error, signal))));
    request.end();
  });
}

/**
 * Requests one link: every hop goes through the guard first (an address it refuses is never
 * connected to), `HEAD`, then `GET` where `HEAD` is refused (405, 501). A 301, 302, 303, 307
 * or 308 with an http(s) Location is followed, at most {@link LINK_CHECK_MAX_REDIRECTS} times;
 * any other answer is the final one (a redirect elsewhere, `mailto:` say, included). The whole
 * link has {@link LINK_CHECK_TIMEOUT_MS}.
 */
export async function checkLink(url: string, guard: TargetGuard, timeoutMs = LINK_CHECK_TIMEOUT_MS): Promise<LinkOutcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  let current = new URL(url);
  current.hash = "";
  let redirects = 0;
  let status: number | null = null;
  const outcome = (error: LinkError | null): LinkOutcome => ({
    url,
    ok: error === null && status !== null && status >= 200 && status < 300,
    status_code: status,
    redirects,
    final_url: current.href,
    error,
  });
  try {
    for (;;) {
      status = null;
      let target: ResolvedTarget;
      try {
        target = await beforeDeadline(guard.resolve(current), signal);
      } catch (error) {
        if (!(error instanceof BlockedTarget)) throw error;
        throw new LinkFailed(error.reason === "unresolvable" ? "dns" : "blocked_address");
      }
      let answer = await ask(target, "HEAD", signal);
      if (HEAD_REFUSED.has(answer.status)) answer = await ask(target, "GET", signal);
      status = answer.status;
      const next = REDIRECTS.has(answer.status) && answer.location !== null ? URL.parse(answer.location, current.href) : null;
      if (next === null || (next.protocol !== "http:" && next.protocol !== "https:")) return outcome(null);
      if (redirects === LINK_CHECK_MAX_REDIRECTS) return outcome("too_many_redirects");
      next.hash = "";
      redirects++;
      current = next;
    }
  } catch (error) {
    if (error instanceof LinkFailed) return outcome(error.reason);
    throw error;
  }
}

/**
 * Checks `urls` (the message's http(s) links, deduplicated, at most {@link LINK_CHECK_MAX_LINKS}),
 * {@link LINK_CHECK_CONCURRENCY} at a time; results in the order given. `broken` when any link
 * is not ok, `ok` otherwise (no links included).
 */
export async function checkLinks(urls: readonly string[], guard: TargetGuard, options: { timeoutMs?: number; concurrency?: number } = {}): Promise<LinkCheckOutcome> {
  const results: LinkOutcome[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const index = next++;
      results[index] = await checkLink(urls[index]!, guard, options.timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? LINK_CHECK_CONCURRENCY, urls.length) }, worker));
  return { status: results.every((result) => result.ok) ? "ok" : "broken", checked_at: new Date().toISOString(), results };
}

/** The links a check requests: the http(s) URLs among `urls`, each once, the first {@link LINK_CHECK_MAX_LINKS}. */
export function linksToCheck(urls: readonly string[]): string[] {
  const kept = new Set<string>();
  for (const url of urls) {
    if (kept.size === LINK_CHECK_MAX_LINKS) break;
    const parsed = URL.parse(url);
    if (parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:")) kept.add(url);
  }
  return [...kept];
}
