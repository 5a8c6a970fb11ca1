import { decodeStreamCursor, encodeStreamCursor } from "./stream-cursor";

describe("stream cursors", () => {
  it("round-trip a stream sequence", () => {
    expect(decodeStreamCursor(encodeStreamCursor("42"))).toBe("42");
    expect(decodeStreamCursor(encodeStreamCursor("999999999999999999"))).toBe("999999999999999999");
  });

  it.each([
    ["absent", undefined],
    ["empty", ""],
    ["not base64 JSON", "not-a-cursor"],
    ["JSON of another version", Buffer.from(JSON.stringify({ v: 2, after: "1" })).toString("base64url")],
    ["a list cursor", Buffer.from(JSON.stringify({ v: 1, before: "1" })).toString("base64url")],
    ["a non-numeric position", Buffer.from(JSON.stringify({ v: 1, after: "1; drop table" })).toString("base64url")],
    ["a position too long for bigint", Buffer.from(JSON.stringify({ v: 1, after: "9".repeat(19) })).toString("base64url")],
  ])("read %s as a fresh stream", (_name, cursor) => {
    expect(decodeStreamCursor(cursor)).toBeNull();
  });
});
