import { inboxAddress, looksLikeAddress, parseSharedAddress } from "./address";

describe("inbox addresses", () => {
  it("puts shared-domain inboxes under the project key", () => {
    expect(inboxAddress({ projectKey: "acme", tag: "signup.run-1", domain: null, sharedDomain: "mailstop.test" })).toBe("acme.signup.run-1@mailstop.test");
  });

  it("puts custom-domain inboxes at the bare tag", () => {
    expect(inboxAddress({ projectKey: "acme", tag: "signup", domain: "qa.acme.com", sharedDomain: "mailstop.test" })).toBe("signup@qa.acme.com");
  });

  it("splits a shared address at the first dot, case-insensitively", () => {
    expect(parseSharedAddress("Acme.Sign.Up@MAILSTOP.test", "mailstop.test")).toEqual({ projectKey: "acme", tag: "sign.up" });
  });

  it.each(["acme@mailstop.test", "acme.x@other.test", "acme.a b@mailstop.test", "a.x@mailstop.test", "nope"])("does not parse %p", (address) => {
    expect(parseSharedAddress(address, "mailstop.test")).toBeNull();
  });

  it("tells addresses from ids", () => {
    expect(looksLikeAddress("a@b.c")).toBe(true);
    expect(looksLikeAddress("ibx_01abc")).toBe(false);
  });
});
