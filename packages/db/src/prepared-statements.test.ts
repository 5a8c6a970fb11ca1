import { MAX_PREPARED_STATEMENTS, prepareStatement, preparedStatementName } from "./prepared-statements";

describe("prepareStatement", () => {
  it("names each text once, and stops at MAX_PREPARED_STATEMENTS so a connection's plans stay bounded", () => {
    const texts = Array.from({ length: MAX_PREPARED_STATEMENTS + 5 }, (_, i) => `select ${i}`);
    for (const text of texts) prepareStatement(text);
    prepareStatement(texts[0]!);
    const names = texts.map(preparedStatementName);
    expect(new Set(names.slice(0, MAX_PREPARED_STATEMENTS)).size).toBe(MAX_PREPARED_STATEMENTS);
    expect(names.slice(MAX_PREPARED_STATEMENTS)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
