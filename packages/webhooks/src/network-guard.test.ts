import { BlockedTarget, TargetGuard, allowedNetworks, isAllowedAddress } from "./network-guard";

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

describe("TargetGuard on literal addresses (no lookup)", () => {
  const guard = new TargetGuard(allowedNetworks(["127.0.0.2/32"], "production"), ["http:", "https:"], null);

  it.each(["http://127.0.0.1/hook", "http://[::1]/hook", "http://[::ffff:127.0.0.1]/hook", "http://169.254.169.254/latest/meta-data"])("refuses %s as blocked_address", async (url) => {
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
