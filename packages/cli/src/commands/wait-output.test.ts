import { impliedMatch, parsePrint, render } from "./wait-output";

const message = {
  id: "msg_1",
  received_at: "2026-11-27T00:00:00.000Z",
  from: { address: "app@example.com", name: "App" },
  subject: "Verify",
  codes: ["123456", "999999"],
  links: [
    { url: "https://x.example/unsub", kind: "unsubscribe", text: null },
    { url: "https://x.example/verify", kind: "verify", text: "Verify" },
  ],
} as unknown as Parameters<typeof render>[0];

describe("parsePrint and impliedMatch", () => {
  it("reads code, json, link and link:<kind>, and waits for what is printed", () => {
    expect(parsePrint(undefined)).toEqual({ what: "summary" });
    expect(impliedMatch(parsePrint("code"))).toEqual({ has_code: true });
    expect(impliedMatch(parsePrint("link:verify"))).toEqual({ has_link_kind: "verify" });
    expect(impliedMatch(parsePrint("link"))).toEqual({});
    expect(impliedMatch(parsePrint("json"))).toEqual({});
  });

  it("refuses anything else", () => {
    expect(() => parsePrint("subject")).toThrow(/--print takes/);
    expect(() => parsePrint("link:login")).toThrow(/unknown link kind/);
    expect(() => parsePrint("link:verify:x")).toThrow(/--print takes/);
  });
});

describe("render", () => {
  it("prints the first code, the first link (of a kind), a summary or JSON", () => {
    expect(render(message, { what: "code" })).toBe("123456");
    expect(render(message, { what: "link" })).toBe("https://x.example/unsub");
    expect(render(message, { what: "link", kind: "verify" })).toBe("https://x.example/verify");
    expect(render(message, { what: "summary" }).split("\n")).toEqual([
      "msg_1  2026-11-27T00:00:00.000Z  app@example.com  Verify",
      "codes: 123456 999999",
      "link (unsubscribe): https://x.example/unsub",
      "link (verify): https://x.example/verify",
    ]);
    expect(JSON.parse(render(message, { what: "json" }))).toEqual(message);
  });

  it("fails when the message lacks what was asked", () => {
    expect(() => render({ ...message, codes: [] }, { what: "code" })).toThrow("message msg_1 has no code");
    expect(() => render(message, { what: "link", kind: "sign_in" })).toThrow("message msg_1 has no sign_in link");
  });
});
