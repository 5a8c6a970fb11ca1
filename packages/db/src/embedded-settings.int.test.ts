import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { EMBEDDED_POSTGRES_SETTINGS } from "./embedded-database";
import { type Db, createEmbeddedDatabase } from "./index";

// The embedded database runs with the PostgreSQL settings embedded-database.ts documents
// (issue 34: PostgreSQL's default 128 MB of shared buffers cost ~130 MB of RSS in an idle
// `pnpm start`), on a new data directory, on one opened again, and in memory.

async function settingsOf(db: Db): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  for (const name of ["shared_buffers", "wal_buffers"]) {
    const { rows } = await sql<Record<string, string>>`show ${sql.raw(name)}`.execute(db);
    shown[name] = rows[0]![name]!;
  }
  return shown;
}

describe("the embedded database's PostgreSQL settings", () => {
  it("are the documented ones: 16 MB of shared buffers, and WAL buffers following them", () => {
    expect(EMBEDDED_POSTGRES_SETTINGS).toEqual({ shared_buffers: "16MB" });
  });

  it("hold on a new data directory and on the same directory opened again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mailstop-embedded-settings-"));
    try {
      const first = createEmbeddedDatabase(join(dir, "pglite"));
      await sql`create table kept (id int)`.execute(first);
      expect(await settingsOf(first)).toEqual({ shared_buffers: "16MB", wal_buffers: "512kB" });
      await first.destroy();
      const again = createEmbeddedDatabase(join(dir, "pglite"));
      try {
        expect(await settingsOf(again)).toEqual({ shared_buffers: "16MB", wal_buffers: "512kB" });
        // PGlite's own start parameters are kept beside ours.
        const { rows } = await sql<{ search_path: string }>`show search_path`.execute(again);
        expect(rows[0]!.search_path).toBe("public");
      } finally {
        await again.destroy();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("hold in memory, created by initdb without a template", async () => {
    const db = createEmbeddedDatabase(null, "/nonexistent-template-dir");
    try {
      expect(await settingsOf(db)).toEqual({ shared_buffers: "16MB", wal_buffers: "512kB" });
    } finally {
      await db.destroy();
    }
  }, 120_000);
});
