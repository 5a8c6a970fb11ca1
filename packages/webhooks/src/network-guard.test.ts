import ipaddr from "ipaddr.js";
import { BlockedTarget, TargetGuard, allowedNetworks, isAllowedAddress, specialPurposeBlock } from "./network-guard";
import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE } from "./special-purpose-addresses";

describe("isAllowedAddress", () => {
  const none = allowedNetworks([], "production");

  it.each([
    "127.0.0.1",
    "::1",
    "::ffff:127.0.0.1",
    "169.254.169.254",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",
    "fd00::1",
    "fe80::1",
    "0.0.0.0",
    "::",
    "224.0.0.1",
    "ff02::1",
    "255.255.255.255",
    "192.0.2.1",
    "2001:db8::1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::1",
    "2001::1",
    "not an address",
  ])("refuses %s without an allow list", (address) => {
    expect(isAllowedAddress(address, none)).toBe(false);
  });

  it.each(["8.8.8.8", "2606:4700::1"])("lets public unicast %s through", (address) => {
    expect(isAllowedAddress(address, none)).toBe(true);
  });

  it("lets an allowed network through, and only that network", () => {
    const allow = allowedNetworks(["127.0.0.2/32"], "production");
    expect(isAllowedAddress("127.0.0.2", allow)).toBe(true);
    expect(isAllowedAddress("127.0.0.1", allow)).toBe(false);
  });

  it("matches an IPv4-mapped address as IPv6: an allowed IPv4 network does not let it through", () => {
    const allow = allowedNetworks(["127.0.0.0/8"], "production");
    expect(isAllowedAddress("::ffff:127.0.0.1", allow)).toBe(false);
  });

  it("defaults to loopback and private ranges in `local`, to nothing elsewhere", () => {
    expect(isAllowedAddress("127.0.0.1", allowedNetworks(null, "local"))).toBe(true);
    expect(isAllowedAddress("192.168.1.1", allowedNetworks(null, "local"))).toBe(true);
    expect(isAllowedAddress("169.254.169.254", allowedNetworks(null, "local"))).toBe(false);
    expect(isAllowedAddress("127.0.0.1", allowedNetworks(null, "staging"))).toBe(false);
  });
});

/** The first, a middle and the last address of a prefix. */
function samples(prefix: string): string[] {
  const [base, bits] = ipaddr.parseCIDR(prefix);
  const width = base.kind() === "ipv4" ? 32 : 128;
  const first = base.toByteArray().reduce((value, byte) => (value << 8n) | BigInt(byte), 0n) & ~((1n << BigInt(width - bits)) - 1n);
  const size = 1n << BigInt(width - bits);
  const address = (value: bigint) => {
    const bytes = Array.from({ length: width / 8 }, (_, i) => Number((value >> BigInt(width - 8 * (i + 1))) & 0xffn));
    return ipaddr.fromByteArray(bytes).toString();
  };
  return [...new Set([address(first), address(first + size / 2n), address(first + size - 1n)])];
}

describe("the IANA special-purpose registries", () => {
  const none = allowedNetworks([], "production");
  const registries = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE];
  // Global per IANA, refused all the same: a NAT64 translator connects to the IPv4 address inside.
  const translated = "64:ff9b::/96";

  it.each(registries.filter((block) => block.globallyReachable !== true).map((block) => [block.prefix, block.name, block.globallyReachable] as const))(
    "refuses the first, a middle and the last address of %s (%s, globally reachable: %s) with an empty allow list",
    (prefix) => {
      for (const address of samples(prefix)) expect([address, isAllowedAddress(address, none)]).toEqual([address, false]);
    },
  );

  it.each(registries.filter((block) => block.globallyReachable === true && block.prefix !== translated).map((block) => [block.prefix, block.name] as const))(
    "lets the first, a middle and the last address of %s (%s, globally reachable) through",
    (prefix) => {
      for (const address of samples(prefix)) expect([address, isAllowedAddress(address, none)]).toEqual([address, true]);
    },
  );

  it("reads every entry of the registries' data file with the columns the guard needs", () => {
    expect([IPV4_SPECIAL_PURPOSE.length, IPV6_SPECIAL_PURPOSE.length]).toEqual([26, 25]);
    for (const block of registries) {
      expect([block.prefix, ipaddr.isValidCIDR(block.prefix), typeof block.name, typeof block.rfc, [true, false, "N/A"]]).toEqual([
        block.prefix,
        true,
        "string",
        "string",
        expect.arrayContaining([block.globallyReachable]),
      ]);
    }
  });

  it("refuses the NAT64 prefix, global per IANA: 64:ff9b::7f00:1 is 127.0.0.1 behind a translator", () => {
    for (const address of samples(translated)) expect(isAllowedAddress(address, none)).toBe(false);
    expect(isAllowedAddress("64:ff9b::808:808", allowedNetworks(["64:ff9b::/96"], "production"))).toBe(true);
  });

  it("decides by the most specific entry, and knows every entry by its prefix", () => {
    expect(specialPurposeBlock("192.0.0.9")).toMatchObject({ prefix: "192.0.0.9/32", globallyReachable: true });
    expect(specialPurposeBlock("192.0.0.1")).toMatchObject({ prefix: "192.0.0.0/29", globallyReachable: false });
    expect(specialPurposeBlock("2001:1::4")).toMatchObject({ prefix: "2001::/23", globallyReachable: false });
    expect(specialPurposeBlock("2001::1")).toMatchObject({ prefix: "2001::/32", globallyReachable: "N/A" });
    expect(specialPurposeBlock("8.8.8.8")).toBeNull();
    // The middle address: the first or the last of a block may be a more specific entry (0.0.0.0/32, 255.255.255.255/32).
    for (const block of registries) expect(specialPurposeBlock(samples(block.prefix)[1] ?? samples(block.prefix)[0]!)).toBe(block);
  });

  it.each(["::7f00:1", "::a00:1", "::808:808", "::", "fec0::1", "feff:ffff::1"])("refuses %s even with an allow list of ::/0 and 0.0.0.0/0", (address) => {
    expect(isAllowedAddress(address, allowedNetworks(["::/0", "0.0.0.0/0"], "production"))).toBe(false);
  });

  it("still lets ::1 through an allow list that covers it (it sits in ::/96 but is loopback, not IPv4-compatible)", () => {
    expect(isAllowedAddress("::1", allowedNetworks(null, "local"))).toBe(true);
    expect(isAllowedAddress("::1", allowedNetworks(["::/0"], "production"))).toBe(true);
    expect(isAllowedAddress("::1", allowedNetworks([], "production"))).toBe(false);
  });

  it("refuses multicast and what ipaddr.js names outside the registries (IPv4-translated)", () => {
    for (const address of ["224.0.0.1", "239.255.255.255", "ff02::1", "ff0e::1", "::ffff:0:7f00:1"]) expect([address, isAllowedAddress(address, none)]).toEqual([address, false]);
  });
});

describe("TargetGuard on literal addresses (no lookup)", () => {
  const guard = new TargetGuard(allowedNetworks(["127.0.0.2/32"], "production"), ["http:", "https:"], null);

  it.each(["http://127.0.0.1/hook", "http://[::1]/hook", "http://[::ffff:127.0.0.1]/hook", "http://169.254.169.254/latest/meta-data", "http://[::7f00:1]/hook", "http://[::127.0.0.2]/hook", "http://[fec0::1]/hook"])("refuses %s as blocked_address", async (url) => {
    await expect(guard.resolve(url)).rejects.toMatchObject({ reason: "blocked_address" });
  });

  it("pins an allowed literal address", async () => {
    expect(await guard.resolve("http://127.0.0.2:8080/hook")).toMatchObject({ address: "127.0.0.2", family: 4 });
  });

  it("refuses a scheme it was not given", async () => {
    const httpsOnly = new TargetGuard([], ["https:"], null);
    const refused = httpsOnly.resolve("http://8.8.8.8/hook");
    await expect(refused).rejects.toBeInstanceOf(BlockedTarget);
    await expect(refused).rejects.toMatchObject({ reason: "unsupported_scheme" });
    await expect(httpsOnly.resolve("ftp://8.8.8.8/hook")).rejects.toMatchObject({ reason: "unsupported_scheme" });
  });

  it("forSettings: https only in production, both schemes elsewhere; the environment's default allow list", async () => {
    const production = TargetGuard.forSettings({ environment: "production", allowNetworks: null, dnsServers: null });
    await expect(production.resolve("http://8.8.8.8/hook")).rejects.toMatchObject({ reason: "unsupported_scheme" });
    await expect(production.resolve("https://127.0.0.1/hook")).rejects.toMatchObject({ reason: "blocked_address" });
    const local = TargetGuard.forSettings({ environment: "local", allowNetworks: null, dnsServers: null });
    expect(await local.resolve("http://127.0.0.1/hook")).toMatchObject({ address: "127.0.0.1" });
    const staging = TargetGuard.forSettings({ environment: "staging", allowNetworks: ["10.1.0.0/16"], dnsServers: null });
    expect(await staging.resolve("http://10.1.2.3/hook")).toMatchObject({ address: "10.1.2.3" });
    await expect(staging.resolve("http://10.2.0.1/hook")).rejects.toMatchObject({ reason: "blocked_address" });
  });
});
