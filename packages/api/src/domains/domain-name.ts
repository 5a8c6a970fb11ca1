import { domainToASCII } from "node:url";
import { parse } from "tldts";

/** The names the service itself answers for, which no project may claim. */
export interface ServiceNames {
  sharedDomain: string;
  mxHost: string;
  captureHost: string;
}

export type DomainNameCheck = { ok: true; domain: string } | { ok: false; reason: string };

const MAX_LENGTH = 253;
// Letters, digits and hyphens, not at either end (RFC 1035's preferred syntax, which mail
// domains follow); IDNA has already turned other scripts into `xn--` labels.
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A name a project may claim as a receiving domain, lower-cased and IDNA-encoded: at most 253
 * characters, a registrable domain or a subdomain of one by the Public Suffix List (private
 * suffixes such as github.io included, so a suffix is never claimable), and none of the
 * service's own names nor under its shared domain. The PSL comes from tldts, which ships the
 * list and is kept current.
 */
export function checkDomainName(input: string, service: ServiceNames): DomainNameCheck {
  // One trailing dot (the fully qualified spelling DNS tools print) is dropped.
  const name = input.endsWith(".") ? input.slice(0, -1) : input;
  const ascii = domainToASCII(name.trim() === name ? name.toLowerCase() : "");
  if (ascii === "") return { ok: false, reason: "is not a domain name" };
  if (ascii.length > MAX_LENGTH) return { ok: false, reason: `is longer than ${MAX_LENGTH} characters` };
  if (!ascii.split(".").every((label) => LABEL.test(label))) return { ok: false, reason: "is not a domain name (labels are letters, digits and inner hyphens)" };
  const parsed = parse(ascii, { allowPrivateDomains: true });
  if (parsed.isIp) return { ok: false, reason: "is an IP address, not a domain name" };
  if (parsed.domain === null) return { ok: false, reason: `is a public suffix (${parsed.publicSuffix ?? ascii}); claim a domain registered under it` };
  const shared = service.sharedDomain.toLowerCase();
  if (ascii === shared || ascii.endsWith(`.${shared}`)) return { ok: false, reason: "is the service's shared domain or under it" };
  if (ascii === service.mxHost.toLowerCase() || ascii === service.captureHost.toLowerCase()) return { ok: false, reason: "is one of the service's own hosts" };
  return { ok: true, domain: ascii };
}
