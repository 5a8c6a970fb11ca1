import { checkDomainName } from "./domain-name";

// Service hosts outside the shared domain, so each rule is seen on its own.
const service = { sharedDomain: "mailstop.test", mxHost: "mx.mail-edge.example", captureHost: "relay.mail-edge.example" };

describe("checkDomainName", () => {
  it.each([
    ["the MX host", "MX.mail-edge.example"],
    ["the capture host", "relay.mail-edge.example."],
    ["the shared domain", "mailstop.test"],
    ["a name under the shared domain", "qa.mailstop.test"],
    ["a private public suffix", "github.io"],
    ["an IP address", "10.0.0.1"],
  ])("refuses %s", (_what, name) => {
    expect(checkDomainName(name, service)).toMatchObject({ ok: false });
  });

  it("accepts a name under the service's hosts' parent: only the hosts themselves are refused", () => {
    expect(checkDomainName("qa.mail-edge.example", service)).toEqual({ ok: true, domain: "qa.mail-edge.example" });
  });

  it("lower-cases, IDNA-encodes and drops one trailing dot", () => {
    expect(checkDomainName("Bücher.Example.COM.", service)).toEqual({ ok: true, domain: "xn--bcher-kva.example.com" });
  });
});
