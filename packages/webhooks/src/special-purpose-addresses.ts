// The registries are data, kept as IANA publishes them (one JSON object per row of its CSV,
// with the columns the guard reads): updating one is a diff of that file alone.
import registries from "./iana-special-purpose-registries.json";

/**
 * One entry of IANA's IPv4 or IPv6 Special-Purpose Address Registry (RFC 6890 as updated by
 * RFC 8190), with the columns the network guard reads.
 */
export interface SpecialPurposeBlock {
  prefix: string;
  name: string;
  rfc: string;
  /** IANA's "Globally Reachable" column; `"N/A"` where IANA gives no value (deprecated or tunnelling blocks). */
  globallyReachable: boolean | "N/A";
}

/**
 * iana-ipv4-special-registry, every entry, in IANA's order. A more specific entry overrides
 * the block around it (IANA's footnote on 192.0.0.0/24: "not usable unless by virtue of a
 * more specific reservation"), so 192.0.0.9/32 is reachable inside a block that is not.
 */
export const IPV4_SPECIAL_PURPOSE = registries.ipv4 as readonly SpecialPurposeBlock[];

/** iana-ipv6-special-registry, every entry, in IANA's order; a more specific entry overrides the block around it here too. */
export const IPV6_SPECIAL_PURPOSE = registries.ipv6 as readonly SpecialPurposeBlock[];
