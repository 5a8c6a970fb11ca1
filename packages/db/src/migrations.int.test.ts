import { sql } from "kysely";
// The test kit is imported by relative path: @mailstop/db does not list @mailstop/testkit.
import { createFreshDatabase, dropDatabase, runServerUrl } from "@mailstop/testkit";
import { type Db, createDatabase, migrateToLatest } from "./index";
import { MIGRATIONS } from "./migrations";

const TABLES = [
  "organisations",
  "projects",
  "api_keys",
  "smtp_credentials",
  "blocked_recipients",
  "domains",
  "inboxes",
  "messages",
  "attachments",
  "usage_counters",
  "storage_usage",
  "ingest_reservations",
  "webhooks",
  "webhook_deliveries",
  "webhook_attempts",
];

const serverUrl = runServerUrl();
let database: { name: string; url: string };
const handles: Db[] = [];

beforeAll(async () => {
  database = await createFreshDatabase(serverUrl, "mailstop_migrations");
  for (let i = 0; i < 5; i++) handles.push(createDatabase(database.url, { maxConnections: 2 }));
});
afterAll(async () => {
  for (const db of handles) await db.destroy();
  await dropDatabase(serverUrl, database.name);
});

const tablesOf = async (db: Db) =>
  (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(db)).rows.map((r) => r.table_name);

describe("migrateToLatest", () => {
  it("starts from an empty database", async () => {
    expect(await tablesOf(handles[0]!)).toEqual([]);
  });

  it("is safe when five instances migrate the same fresh database at once: every migration applied exactly once", async () => {
    const outcomes = await Promise.allSettled(handles.map((db) => migrateToLatest(db)));
    for (const outcome of outcomes) expect(outcome.status).toBe("fulfilled");
    const results = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? outcome.value : []));
    for (const result of results) expect(result.status).toBe("Success");
    expect(results.map((result) => result.migrationName).sort()).toEqual(Object.keys(MIGRATIONS).sort());
  });

  it("creates every table of the data model", async () => {
    expect(await tablesOf(handles[1]!)).toEqual(expect.arrayContaining(TABLES));
  });

  it("records every migration once", async () => {
    const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handles[2]!);
    expect(recorded.rows.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort());
  });

  it("applies nothing on a second run, from every handle", async () => {
    for (const db of handles) expect(await migrateToLatest(db)).toEqual([]);
  });
});
