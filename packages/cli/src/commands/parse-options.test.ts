import { InvalidArgumentError } from "commander";
import { booleanWord, commaList, parseRetention, positiveInteger } from "./parse-options";
import { parseTimeout } from "./wait-output";

// Each duration flag: what it reads (in its unit: ms for --timeout, seconds for --retention)
// and what it refuses with an error naming the flag. Bounds are the server's.
describe.each([
  { flag: "--timeout", parse: parseTimeout, reads: [["60s", 60_000], ["500ms", 500], ["2m", 120_000], ["45", 45_000], ["0.5s", 500]], refuses: ["", "soon", "10h", "-1s", "0ms"] },
  { flag: "--retention", parse: parseRetention, reads: [["1d", 86_400], ["12h", 43_200], ["30m", 1_800], ["3600s", 3_600], ["90", 90]], refuses: ["", "a day", "500ms", "1w", "-1d"] },
] as const)("$flag", ({ flag, parse, reads, refuses }) => {
  it.each(reads)("reads %s as %i", (text, value) => expect(parse(text)).toBe(value));
  it.each(refuses)("refuses %p", (text) => expect(() => parse(text)).toThrow(flag));
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
