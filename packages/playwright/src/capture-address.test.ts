import { captureRecipient } from "./capture-address";

describe("captureRecipient", () => {
  it("gives a pw- address on the domain and the capture tag the relay files it under", () => {
    expect(captureRecipient("Example.Test", "0a1b")).toEqual({ address: "pw-0a1b@example.test", tag: "capture.example.test.pw-0a1b" });
    expect(captureRecipient("mail.acme-staging.example", "ff")).toEqual({ address: "pw-ff@mail.acme-staging.example", tag: "capture.mail.acme-staging.example.pw-ff" });
  });

  it.each(["localhost", "exa mple.test", "ex_ample.test", "bücher.example", "-a.test", "a..test", ""])("refuses %j as a capture domain", (domain) => {
    expect(() => captureRecipient(domain, "0a")).toThrow(RangeError);
  });

  it("refuses a unique part that would need escaping in the tag", () => {
    expect(() => captureRecipient("example.test", "Ab_")).toThrow(RangeError);
  });
});
