import { MAX_VARYING_STATEMENTS, prepareStatement, prepareVaryingStatement, preparedStatementName } from "./prepared-statements";

describe("prepared statement registry", () => {
  it("names each text once, and takes at most MAX_VARYING_STATEMENTS texts built from input, never refusing one fixed in the code", () => {
    prepareStatement("select fixed");
    const fixed = preparedStatementName("select fixed");
    const texts = Array.from({ length: MAX_VARYING_STATEMENTS + 5 }, (_, i) => `select ${i}`);
    prepareVaryingStatement(texts[0]!);
    const first = preparedStatementName(texts[0]!);
    // Registered again while there is room: it keeps its name and takes no second place.
    prepareVaryingStatement(texts[0]!);
    prepareStatement("select fixed");
    expect(preparedStatementName(texts[0]!)).toBe(first);
    expect(preparedStatementName("select fixed")).toBe(fixed);
    for (const text of texts) prepareVaryingStatement(text);
    const names = texts.map(preparedStatementName);
    expect(new Set(names.slice(0, MAX_VARYING_STATEMENTS)).size).toBe(MAX_VARYING_STATEMENTS);
    expect(names.slice(MAX_VARYING_STATEMENTS)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    // A text fixed in the code is prepared even once the varying ones are full.
    prepareStatement("select fixed later");
    expect(preparedStatementName("select fixed later")).toMatch(/^mailstop_/);
    expect(new Set([fixed, preparedStatementName("select fixed later"), ...names.slice(0, MAX_VARYING_STATEMENTS)]).size).toBe(MAX_VARYING_STATEMENTS + 2);
  });
});
