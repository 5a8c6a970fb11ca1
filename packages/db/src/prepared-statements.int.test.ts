import { sql } from "kysely";
import { newId } from "@mailstop/core";
import { createFreshDatabase, dropDatabase, runServerUrl } from "@mailstop/testkit";
import { compiledOnce } from "./compiled-once";
import { type Db, createDatabase, migrateToLatest } from "./index";
import { findApiKeyByHash } from "./repositories/credential.repository";
import { lookupRecipient } from "./repositories/delivery.repository";
import { findReadableMessage, listReadableMessages } from "./repositories/message-read.repository";
import { storeMessageBatch } from "./repositories/message.repository";
import { storeInput } from "./repositories/store-input.fixture";
import { ensureInbox } from "./repositories/inbox.repository";
import { insertOrganisation, insertProject } from "./repositories/tenancy.repository";
import { preparedStatementName } from "./prepared-statements";

// PostgreSQL only: only the integration project runs the database package's files, and
// prepared statements are PostgreSQL's (PGlite runs every query unnamed).
describe("prepared statements on PostgreSQL", () => {
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
    const organisation = await insertOrganisation(db, { id: newId("organisation"), name: "prepared" });
    const projectId = newId("project");
    await insertProject(db, { id: projectId, organisationId: organisation.id, key: "prepared", region: "us" });
    const { inbox } = await ensureInbox(db, newId("inbox"), { projectId, domainId: null, tag: "t", address: "prepared.t@mailstop.test", labels: {}, retentionSeconds: 3600 });
    const stored = (await storeMessageBatch(db, [storeInput(projectId, `raw/${newId("message")}`, [inbox.id], { subject: "Prepared" })]))[0]?.[0];
    expect((await findReadableMessage(db, projectId, stored!.messageId))?.subject).toBe("Prepared");
    expect(await findApiKeyByHash(db, Buffer.alloc(32), "2026-11-01")).toBeNull();
    expect(await lookupRecipient(db, "nobody@mailstop.test", { kind: "shared", projectKey: "none" })).toEqual({ blocked: false, target: null, domainVerified: null });
    // A wait's check of one arrival against its match, twice with other values: one statement.
    for (const subject of ["prepared", "other"]) {
      await listReadableMessages(db, projectId, { id: stored!.messageId, subjectContains: subject }, { beforeSeq: null, limit: 1 });
    }
    // A list (no id) is not: its best plan depends on the values.
    expect(await listReadableMessages(db, projectId, { inboxId: inbox.id, subjectContains: "prepared" }, { beforeSeq: null, limit: 50 })).toHaveLength(1);
    await db.selectFrom("inboxes").select("id").where("tag", "=", "none").execute();
    const statements = (await prepared()).map((row) => row.statement);
    const count = (fragment: string) => statements.filter((statement) => statement.includes(fragment)).length;
    expect(count("jsonb_to_recordset")).toBe(1);
    expect(count('"api_keys"')).toBe(1);
    expect(count('"blocked_recipients"')).toBe(1);
    // The message read by id, and the wait's check (by id, with a subject filter).
    expect(count('"m"."id" =')).toBe(2);
    expect(count("strpos(lower(m.subject)")).toBe(1);
    expect(count('where "tag" =')).toBe(0);
  });

  it("keeps running a prepared message read after a migration adds a column to messages", async () => {
    expect(await findReadableMessage(db, "prj_none", "msg_none")).toBeNull();
    await sql`alter table messages add column zz_added int`.execute(db);
    try {
      // A statement selecting m.* would now fail: "cached plan must not change result type".
      expect(await findReadableMessage(db, "prj_none", "msg_none")).toBeNull();
      expect(await listReadableMessages(db, "prj_none", { id: "msg_none" }, { beforeSeq: null, limit: 1 })).toEqual([]);
    } finally {
      await sql`alter table messages drop column zz_added`.execute(db);
    }
  });
});
