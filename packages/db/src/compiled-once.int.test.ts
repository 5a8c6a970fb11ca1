import { sql } from "kysely";
import { compiledOnce } from "./compiled-once";
import { type Db, createEmbeddedDatabase } from "./index";

let db: Db;
beforeAll(() => {
  db = createEmbeddedDatabase(null);
});
afterAll(() => db.destroy());

describe("compiledOnce", () => {
  it("builds the SQL once per database handle and binds each call's own values", async () => {
    let builds = 0;
    const pair = compiledOnce(2, (handle: Db, a: string, b: number) => {
      builds += 1;
      return handle.selectNoFrom([sql<string>`${a}::text`.as("a"), sql<number>`${b}::int + ${7}::int`.as("b")]);
    });
    expect(await pair(db, "x", 1)).toEqual([{ a: "x", b: 8 }]);
    expect(await pair(db, "y", 2)).toEqual([{ a: "y", b: 9 }]);
    // Concurrent calls do not see each other's values.
    expect(await Promise.all([pair(db, "p", 10), pair(db, "q", 20)])).toEqual([[{ a: "p", b: 17 }], [{ a: "q", b: 27 }]]);
    expect(builds).toBe(1);
  });

  it("refuses a query in which an argument did not become a parameter", async () => {
    const lowered = compiledOnce(1, (handle: Db, a: string) => handle.selectNoFrom(sql<string>`${String(a).toLowerCase()}::text`.as("a")));
    await expect(lowered(db, "X")).rejects.toThrow(/did not become parameters/);
  });
});
