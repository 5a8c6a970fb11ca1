import { sql } from "kysely";
import { createFreshDatabase, describeWithEngines, dropDatabase, runServerUrl } from "@mailstop/testkit";
import { compiledOnce } from "./compiled-once";
import { type Db, createDatabase, migrateToLatest } from "./index";
import { findApiKeyByHash } from "./repositories/credential.repository";
import { lookupRecipient } from "./repositories/delivery.repository";
import { listReadableMessages } from "./repositories/message-read.repository";
import { preparedStatementName } from "./prepared-statements";

describeWithEngines("prepared statements on PostgreSQL", "prepared statements are PostgreSQL's; PGlite runs every query unnamed", () => {
  const serverUrl = runServerUrl();
  let database: { name: string; url: string };
  let db: Db;

  beforeAll(async () => {
    database = await createFreshDatabase(serverUrl, "mailstop_prepared");
    // One connection, so the session that ran a query is the one asked what it has prepared.
    db = createDatabase(database.url, { maxConnections: 1 });
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db.destroy();
    await dropDatabase(serverUrl, database.name);
  });

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)).rows;

  it("runs a compiled-once query as a named statement, planned once per connection, with each call's values", async () => {
    const pair = compiledOnce(2, (handle: Db, a: string, b: number) => handle.selectNoFrom([sql<string>`${a}::text`.as("a"), sql<number>`${b}::int * 2`.as("b")]));
    expect(await pair(db, "x", 1)).toEqual([{ a: "x", b: 2 }]);
    expect(await pair(db, "y", 5)).toEqual([{ a: "y", b: 10 }]);
    const statements = (await prepared()).filter((row) => row.statement.includes("::int * 2"));
    expect(statements).toHaveLength(1);
    expect(statements[0]!.name).toBe(preparedStatementName(statements[0]!.statement));
  });

  it("prepares the hot paths' queries, and nothing else", async () => {
    expect(await findApiKeyByHash(db, Buffer.alloc(32))).toBeNull();
    expect(await lookupRecipient(db, "nobody@mailstop.test", { kind: "shared", projectKey: "none" })).toEqual({ blocked: false, target: null });
    // A wait's check of one arrival against its match, twice with other values: one statement.
    for (const subject of ["code", "link"]) {
      expect(await listReadableMessages(db, "prj_none", { id: "msg_none", subjectContains: subject }, { beforeSeq: null, limit: 1 })).toEqual([]);
    }
    // A list (no id) is not: its best plan depends on the values.
    expect(await listReadableMessages(db, "prj_none", { inboxId: "ibx_none", subjectContains: "code" }, { beforeSeq: null, limit: 50 })).toEqual([]);
    await db.selectFrom("inboxes").select("id").where("tag", "=", "none").execute();
    const statements = await prepared();
    expect(statements.every((row) => row.name.startsWith("mailstop_"))).toBe(true);
    expect(statements.filter((row) => row.statement.includes('"api_keys"'))).toHaveLength(1);
    expect(statements.filter((row) => row.statement.includes('"blocked_recipients"'))).toHaveLength(1);
    expect(statements.filter((row) => row.statement.includes("strpos(lower(m.subject)"))).toHaveLength(1);
    expect(statements.some((row) => row.statement.includes('where "tag" ='))).toBe(false);
  });
});
