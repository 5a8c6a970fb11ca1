import { captureTag } from "./capture";

describe("capture tag", () => {
  it.each([
    ["John.Doe+x@Example.com", "capture.example.com.john.doe_2bx"],
    ["alice@staging.acme.io", "capture.staging.acme.io.alice"],
    ["under_score@a.b", "capture.a.b.under_5fscore"],
    ["dash-ok@a.b", "capture.a.b.dash-ok"],
    ["josé@bücher.de", "capture.xn--bcher-kva.de.jos_c3_a9"],
    ["UPPER@LOWER.COM", "capture.lower.com.upper"],
    ["ünï.code@bücher.example", "capture.xn--bcher-kva.example._c3_bcn_c3_af.code"],
    ["o'brien@mail.example.org", "capture.mail.example.org.o_27brien"],
  ])("%s files under %s", (address, tag) => {
    expect(captureTag(address)).toBe(tag);
  });

  it.each(["no-at-sign", "@example.com", "a..b@example.com", ".a@example.com", "a@", "user@"])("cannot make a tag of %p", (address) => {
    expect(captureTag(address)).toBeNull();
  });
});
