import { Resolver, lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Network = [Address, number];

/**
 * What a webhook may reach without an allow list: public unicast only. ipaddr.js names every
 * special range (loopback, private, link-local, CGNAT, unique-local, multicast, unspecified,
 * broadcast, documentation and other reserved blocks, IPv4-mapped, NAT64, 6to4, Teredo); any
 * name but `unicast` is refused. An IPv4-mapped address is refused even when the IPv4 network
 * is allowed: it is matched as IPv6, so only an IPv6 network that covers it lets it through.
 */
export function isAllowedAddress(address: string, allow: readonly Network[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.range() === "unicast") return true;
  return allow.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
}

/** The networks a local setup may reach by default: loopback and private ranges. */
export const LOCAL_ALLOWED_NETWORKS = ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"];

/** MAILSTOP_WEBHOOK_ALLOW_NETWORKS, or its default: the local ranges in `local`, nothing elsewhere. */
export function allowedNetworks(configured: readonly string[] | null, environment: string): Network[] {
  return (configured ?? (environment === "local" ? LOCAL_ALLOWED_NETWORKS : [])).map((cidr) => ipaddr.parseCIDR(cidr));
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
