import { InvalidArgumentError } from "commander";
import { booleanWord, commaList, parseRetention, positiveInteger } from "./parse-options";

describe("parseRetention", () => {
  it.each([
    ["1d", 86_400],
    ["12h", 43_200],
    ["30m", 1_800],
    ["3600s", 3_600],
    ["90", 90],
  ])("reads %s as %i seconds", (text, seconds) => expect(parseRetention(text)).toBe(seconds));

  // Milliseconds are no retention unit; the server bounds the value (60 s to 30 d).
  it.each(["", "a day", "500ms", "1w", "-1d"])("refuses %p", (text) => expect(() => parseRetention(text)).toThrow(/--retention/));
});

describe("flag value parsers", () => {
  it("reads a positive whole number, true or false, and a comma-separated list", () => {
    expect(positiveInteger("25")).toBe(25);
    for (const bad of ["0", "-1", "2.5", "ten"]) expect(() => positiveInteger(bad)).toThrow(InvalidArgumentError);
    expect([booleanWord("true"), booleanWord("false")]).toEqual([true, false]);
    expect(() => booleanWord("yes")).toThrow(InvalidArgumentError);
    expect(commaList("message.received, domain.verified,")).toEqual(["message.received", "domain.verified"]);
  });
});
