import { inlineParameters, literalOf } from "./pglite-simple-queries";

describe("inlineParameters", () => {
  it("writes each placeholder's literal, quoted, with quotes doubled and backslashes kept", () => {
    expect(inlineParameters("select * from t where a = $1 and b = $2", ["it's", "C:\\path"])).toBe("select * from t where a = 'it''s' and b = 'C:\\path'");
    expect(inlineParameters("select $2, $1, $10", [1, true, 3, 4, 5, 6, 7, 8, 9, 10n])).toBe("select 'true', '1', '10'");
  });

  it("leaves $n alone inside strings, quoted identifiers, comments, dollar quotes and identifiers", () => {
    const sql = `select '$1', E'\\'$1', "a$1", a$1, $$ $1 $$, $tag$ $1 $tag$, $1 -- $1\n/* $1 /* $1 */ $1 */ from t`;
    expect(inlineParameters(sql, ["x"])).toBe(`select '$1', E'\\'$1', "a$1", a$1, $$ $1 $$, $tag$ $1 $tag$, 'x' -- $1\n/* $1 /* $1 */ $1 */ from t`);
  });

  it("gives null, leaving the query to the extended protocol, for a value with no exact literal or a placeholder with no value", () => {
    expect(inlineParameters("select $1", ["a\0b"])).toBeNull();
    expect(inlineParameters("select $1", [[Buffer.from("ab")]])).toBeNull();
    expect(inlineParameters("select $1", [Symbol("s")])).toBeNull();
    expect(inlineParameters("select $1", [new Date(Number.NaN)])).toBeNull();
    expect(inlineParameters("select $2", ["a"])).toBeNull();
  });
});

describe("literalOf", () => {
  it("writes nulls, buffers, dates, arrays and objects as the extended protocol sends them", () => {
    expect(literalOf(null)).toBe("null");
    expect(literalOf(undefined)).toBe("null");
    expect(literalOf(Buffer.from([0, 255]))).toBe("'\\x00ff'");
    expect(literalOf(new Date("2026-11-27T06:00:00.000Z"))).toBe("'2026-11-27T06:00:00.000Z'");
    expect(literalOf(["a", null, 'q"uo\\te', "it's", "{,}"])).toBe(`'{"a",NULL,"q\\"uo\\\\te","it''s","{,}"}'`);
    expect(literalOf([[1, 2], [3, null]])).toBe(`'{{"1","2"},{"3",NULL}}'`);
    expect(literalOf({ a: "it's" })).toBe(`'{"a":"it''s"}'`);
  });
});
