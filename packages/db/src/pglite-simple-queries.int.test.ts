import { sql } from "kysely";
import { type Db, createEmbeddedDatabase } from "./index";

// The embedded database sends kysely's queries as simple queries with literal parameters
// (pglite-simple-queries.ts): every kind of value the repositories pass comes back exactly,
// hostile text included, and what has no literal still reaches PostgreSQL as a parameter.

describe("PGlite queries with parameters written as literals", () => {
  let db: Db;
  beforeAll(async () => {
    db = createEmbeddedDatabase(null, "/nonexistent-template-dir");
    await sql`create table values_kept (id int primary key, t text, tags text[], b bytea, at timestamptz, doc jsonb, n int8, ok boolean)`.execute(db);
  }, 60_000);
  afterAll(() => db.destroy());

  const hostile = ["it's", "back\\slash\\", "$1 and $$ and $tag$", "'; drop table values_kept; --", 'quote " and {braces}, commas', "NULL", "", "línea\nnueva ✉️"];

  it.each(hostile)("keeps text %j, alone and in an array", async (text) => {
    const id = hostile.indexOf(text);
    await sql`insert into values_kept (id, t, tags) values (${id}, ${text}, ${[text, null, text]}::text[])`.execute(db);
    const row = await sql<{ t: string; tags: (string | null)[] }>`select t, tags from values_kept where id = ${id}`.execute(db);
    expect(row.rows).toEqual([{ t: text, tags: [text, null, text] }]);
  });

  it("keeps bytes, instants, json, big integers and booleans, and counts the rows an update touched", async () => {
    const at = new Date("2026-11-27T06:00:00.123Z");
    const bytes = Buffer.from([0, 39, 92, 255]);
    await sql`insert into values_kept (id, b, at, doc, n, ok) values (${100}, ${bytes}, ${at}, ${JSON.stringify({ q: "it's \\ \"x\"" })}::jsonb, ${"9007199254740993"}, ${true})`.execute(db);
    const row = await sql<{ b: Buffer; at: Date; doc: unknown; n: string; ok: boolean }>`select b, at, doc, n, ok from values_kept where id = ${100}`.execute(db);
    expect(row.rows[0]).toEqual({ b: bytes, at, doc: { q: "it's \\ \"x\"" }, n: "9007199254740993", ok: true });
    const updated = await sql`update values_kept set ok = ${false} where id >= ${100}`.execute(db);
    expect(updated.numAffectedRows).toBe(1n);
  });

  it("leaves a string with a NUL to the extended protocol, whose error is PostgreSQL's own, not a query cut short", async () => {
    await expect(sql`insert into values_kept (id, t) values (${200}, ${"cut\0here"})`.execute(db)).rejects.toThrow(/invalid byte sequence|0x00/);
    expect((await sql`select id from values_kept where id = ${200}`.execute(db)).rows).toEqual([]);
  });

  it("keeps transactions: a rolled-back insert is gone", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into values_kept (id, t) values (${300}, ${"rolled back"})`.execute(trx);
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect((await sql`select id from values_kept where id = ${300}`.execute(db)).rows).toEqual([]);
  });
});
