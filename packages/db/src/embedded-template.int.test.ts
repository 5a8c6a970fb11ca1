import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { buildEmbeddedTemplate, copyTemplateTo, embeddedTemplateDirectory, embeddedTemplatePath } from "./embedded-template";
import { type Db, createEmbeddedDatabase, migrateToLatest } from "./index";
import { MIGRATIONS } from "./migrations";

async function appliedMigrations(db: Db): Promise<string[]> {
  const exists = await sql<{ present: boolean }>`select to_regclass('kysely_migration') is not null as present`.execute(db);
  if (!exists.rows[0]!.present) return [];
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((row) => row.name);
}

describe("the embedded database's pre-built template", () => {
  let root: string;
  let templateDir: string;
  const opened: Db[] = [];
  const open = (directory: string | null, dir = templateDir): Db => {
    const db = createEmbeddedDatabase(directory, dir);
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "mailstop-template-"));
    templateDir = join(root, "cache");
    // A template of an earlier schema, which the build removes.
    await mkdir(templateDir);
    await writeFile(join(templateDir, "pglite-template-0123456789abcdef.tar.gz"), "stale");
    await mkdir(join(templateDir, "pglite-template-0123456789abcdef"));
    await buildEmbeddedTemplate(templateDir);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(opened.map((db) => db.destroy()));
    await rm(root, { recursive: true, force: true });
  });

  it("is built once, as a tarball and unpacked, under a name keyed by the PGlite version and the migrations, with no partial file and no earlier template left", async () => {
    expect(await buildEmbeddedTemplate(templateDir)).toEqual({ path: embeddedTemplatePath(templateDir), built: false });
    expect((await readdir(templateDir)).sort()).toEqual([embeddedTemplateDirectory(templateDir), embeddedTemplatePath(templateDir)].map((path) => path.split("/").pop()).sort());
    expect(existsSync(join(embeddedTemplateDirectory(templateDir), "PG_VERSION"))).toBe(true);
  });

  it("unpacks a tarball an earlier install built alone", async () => {
    await rm(embeddedTemplateDirectory(templateDir), { recursive: true });
    expect(await buildEmbeddedTemplate(templateDir)).toEqual({ path: embeddedTemplatePath(templateDir), built: true });
    expect(existsSync(join(embeddedTemplateDirectory(templateDir), "PG_VERSION"))).toBe(true);
  }, 60_000);

  it("starts a new database on disk as a copy of the unpacked template, before PGlite opens it (issue 34: PGlite unpacking the tarball kept ~100 MB of RSS)", async () => {
    const directory = join(root, "copied");
    const db = open(directory);
    expect(existsSync(join(directory, "PG_VERSION"))).toBe(true);
    expect((await readdir(root)).filter((name) => name.includes(".partial"))).toEqual([]);
    expect(await appliedMigrations(db)).toEqual(Object.keys(MIGRATIONS));
  }, 60_000);

  it("copies nothing into a directory that holds anything, or when the template was not unpacked", async () => {
    const busy = join(root, "busy");
    await mkdir(busy);
    await writeFile(join(busy, "notes.txt"), "mine");
    expect(copyTemplateTo(busy, templateDir)).toBe(false);
    expect(await readdir(busy)).toEqual(["notes.txt"]);
    expect(copyTemplateTo(join(root, "elsewhere"), join(root, "no-template-here"))).toBe(false);
    expect(existsSync(join(root, "elsewhere"))).toBe(false);
  });

  it("gives a new database every migration before migrateToLatest runs, on disk and in memory", async () => {
    const onDisk = open(join(root, "fresh"));
    expect(await appliedMigrations(onDisk)).toEqual(Object.keys(MIGRATIONS));
    expect(await migrateToLatest(onDisk)).toEqual([]);
    expect(await appliedMigrations(open(null))).toEqual(Object.keys(MIGRATIONS));
  }, 60_000);

  it("never replaces an existing database: its rows survive a reopen", async () => {
    const directory = join(root, "kept");
    const first = open(directory);
    await sql`create table kept_rows (n int)`.execute(first);
    await sql`insert into kept_rows values (7)`.execute(first);
    await first.destroy();
    opened.splice(opened.indexOf(first), 1);
    const reopened = open(directory);
    expect((await sql<{ n: number }>`select n from kept_rows`.execute(reopened)).rows).toEqual([{ n: 7 }]);
  }, 60_000);

  it("without a template for today's schema, the database is created empty by initdb", async () => {
    expect(await appliedMigrations(open(null, join(root, "no-template-here")))).toEqual([]);
  }, 60_000);
});
