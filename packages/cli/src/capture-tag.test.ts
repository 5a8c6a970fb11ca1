import { captureTag } from "@mailstop/core";
import { captureTagOf } from "@mailstop/sdk/source";

// The SDK carries its own copy of the relay's rule (it depends on no server code): the two
// must give the same tag for every address, or the SDK would point at an inbox the relay never fills.
const ADDRESSES = [
  "John.Doe+x@Example.com",
  "newuser@example.com",
  "a@b.c",
  "ünï.code@bücher.example",
  "o'brien@mail.example.org",
  "x..y@example.com",
  "@example.com",
  "no-at-sign",
  "user@",
  "ab_c@example.com",
];

it.each(ADDRESSES)("gives the capture relay's tag for %s", (address) => {
  expect(captureTagOf(address)).toBe(captureTag(address));
});

it("writes a byte outside [a-z0-9-] as _xx", () => {
  expect(captureTagOf("John.Doe+x@Example.com")).toBe("capture.example.com.john.doe_2bx");
});
