import { Resolver, lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE, type SpecialPurposeBlock } from "./special-purpose-addresses";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Network = [Address, number];

const cidr = (text: string): Network => ipaddr.parseCIDR(text);
const within = (address: Address, [network, bits]: Network): boolean => network.kind() === address.kind() && address.match(network, bits);

/**
 * Refused whatever the allow list says, even `::/0`: deprecated forms that ipaddr.js calls
 * unicast and that a stack still honouring them routes somewhere local. An IPv4-compatible
 * address (`::/96`, RFC 4291 §2.5.5.1) is its IPv4 address there (`::7f00:1` is 127.0.0.1),
 * which the allow list never matched as IPv4; a site-local one (`fec0::/10`, RFC 3879) is
 * inside some site, if anywhere.
 */
const NEVER_ALLOWED: readonly Network[] = [cidr("::/96"), cidr("fec0::/10")];
/** Inside `::/96` but its own address, not an IPv4-compatible one: `localhost` resolves to it, and `local` allows it. */
const IPV6_LOOPBACK = cidr("::1/128");

/**
 * The NAT64 well-known prefix: IANA calls it globally reachable, but a translator connects to
 * the IPv4 address inside it, whichever that is (`64:ff9b::7f00:1` is 127.0.0.1), so it is
 * refused unless allowed, as it was before the registries decided.
 */
const TRANSLATED = cidr("64:ff9b::/96");

const SPECIAL_PURPOSE = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE].map((block) => ({ block, network: cidr(block.prefix) }));

/** The special-purpose entry that decides for `address`: the most specific one covering it, or null. */
export function specialPurposeBlock(address: string): SpecialPurposeBlock | null {
  const parsed = ipaddr.parse(address);
  let found: { block: SpecialPurposeBlock; bits: number } | null = null;
  for (const { block, network } of SPECIAL_PURPOSE) {
    if (network[1] > (found?.bits ?? -1) && within(parsed, network)) found = { block, bits: network[1] };
  }
  return found?.block ?? null;
}

/**
 * What a webhook may reach (docs/decisions.md "Audit and the address guard (issue 29)"):
 * never `::/96` (but `::1`) nor `fec0::/10`; then anything inside the allow list; then, by the
 * IANA special-purpose registries, only an entry that is globally reachable (the most specific
 * entry decides; `N/A` is refused), and the NAT64 prefix is refused; an address in no entry
 * must be what ipaddr.js calls `unicast` (this refuses multicast and the rest it names). An
 * IPv4-mapped address is matched as IPv6: only an IPv6 network that covers it lets it through.
 */
export function isAllowedAddress(address: string, allow: readonly Network[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (NEVER_ALLOWED.some((network) => within(parsed, network)) && !within(parsed, IPV6_LOOPBACK)) return false;
  if (allow.some((network) => within(parsed, network))) return true;
  if (within(parsed, TRANSLATED)) return false;
  const block = specialPurposeBlock(address);
  return block === null ? parsed.range() === "unicast" : block.globallyReachable === true;
}

/** The networks a local setup may reach by default: loopback and private ranges. */
export const LOCAL_ALLOWED_NETWORKS = ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"];

/** MAILSTOP_WEBHOOK_ALLOW_NETWORKS, or its default: the local ranges in `local`, nothing elsewhere. */
export function allowedNetworks(configured: readonly string[] | null, environment: string): Network[] {
  return (configured ?? (environment === "local" ? LOCAL_ALLOWED_NETWORKS : [])).map(cidr);
}

/** A refused target: the URL's scheme, or an address outside what the operator allows. */
export class BlockedTarget extends Error {
  constructor(
    readonly reason: "blocked_address" | "unsupported_scheme" | "unresolvable",
    message: string,
  ) {
    super(message);
  }
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the connection goes to: never looked up again. */
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a webhook URL's host once and checks every address it has, so one allowed answer
 * cannot hide a refused one; the connection then goes to the first checked address, which a
 * DNS answer changing afterwards (rebinding) cannot redirect.
 */
export class TargetGuard {
  private readonly resolver: Resolver | null;

  constructor(
    private readonly allow: readonly Network[],
    private readonly schemes: readonly ("http:" | "https:")[],
    dnsServers: readonly string[] | null,
  ) {
    this.resolver = dnsServers === null ? null : new Resolver({ timeout: 5_000, tries: 1 });
    this.resolver?.setServers([...dnsServers!]);
  }

  /** The guard of a deployment: its allow list, `https` only in production, its DNS servers. */
  static forSettings(settings: { environment: string; allowNetworks: readonly string[] | null; dnsServers: readonly string[] | null }): TargetGuard {
    const schemes = settings.environment === "production" ? (["https:"] as const) : (["http:", "https:"] as const);
    return new TargetGuard(allowedNetworks(settings.allowNetworks, settings.environment), schemes, settings.dnsServers);
  }

  async resolve(target: string | URL): Promise<ResolvedTarget> {
    const url = new URL(target);
    if (!(this.schemes as readonly string[]).includes(url.protocol)) {
      throw new BlockedTarget("unsupported_scheme", `${url.protocol.slice(0, -1)} is not allowed here; use ${this.schemes.map((s) => s.slice(0, -1)).join(" or ")}`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const literal = ipaddr.isValid(host);
    const addresses = literal ? [host] : await this.addressesOf(host);
    if (addresses.length === 0) throw new BlockedTarget("unresolvable", `${host} has no address`);
    const refused = addresses.find((address) => !isAllowedAddress(address, this.allow));
    if (refused !== undefined) {
      throw new BlockedTarget("blocked_address", `${literal ? host : `${host} resolves to ${refused}, which`} is an address webhooks may not reach`);
    }
    const address = addresses[0]!;
    return { url, address, family: ipaddr.parse(address).kind() === "ipv6" ? 6 : 4 };
  }

  private async addressesOf(host: string): Promise<string[]> {
    try {
      if (this.resolver === null) return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
      const settled = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
      return settled.flatMap((result) => (result.status === "fulfilled" ? result.value : []));
    } catch {
      return [];
    }
  }
}
