import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Kysely } from "kysely";
import { MIGRATIONS } from "./migrations";

/**
 * A pre-built PGlite data directory with every migration applied, so a fresh embedded database
 * starts from it instead of running initdb and the migrations (≈4 s on two cores): as a tarball
 * (an in-memory database, which PGlite loads it into) and unpacked (a database on disk, copied
 * from it). It holds no tenant data: the first-start bootstrap still runs on the copy.
 *
 * Its name carries a hash of the PGlite version and every migration's name and code, so a
 * template from another schema or engine build is never used: it is simply not found, and the
 * database is created the slow way.
 */
// The pinned version from this package's manifest: PGlite's own package.json is not exported,
// and reading anything of PGlite here would load it in every process (see lazy-pglite.test.ts).
const PGLITE_VERSION: string = (require("../package.json") as { dependencies: Record<string, string> }).dependencies["@electric-sql/pglite"]!;

/** Where install puts the template: this package's node_modules/.cache (the find-cache-dir convention). */
export const DEFAULT_TEMPLATE_DIR = resolve(__dirname, "..", "node_modules", ".cache", "mailstop");

/**
 * The migrations' sources. Their text keys the template, not their compiled functions'
 * (`toString()`), which differ between tsx, jest and the compiled bundle: each would look for
 * a template of its own, and the compiled `pnpm start` would never find the install's.
 */
const MIGRATIONS_DIR = join(__dirname, "migrations");

/** The modules of that folder the migrations build with: what they build is part of what a migration does. */
const MIGRATION_HELPERS = ["project-table"];

export function embeddedTemplateKey(): string {
  const hash = createHash("sha256").update(`pglite ${PGLITE_VERSION}\n`);
  for (const name of [...Object.keys(MIGRATIONS), ...MIGRATION_HELPERS]) hash.update(`${name}\n${readFileSync(join(MIGRATIONS_DIR, `${name}.ts`), "utf8")}\n`);
  return hash.digest("hex").slice(0, 16);
}

export function embeddedTemplatePath(templateDir: string = DEFAULT_TEMPLATE_DIR): string {
  return join(templateDir, `pglite-template-${embeddedTemplateKey()}.tar.gz`);
}

/**
 * The same template unpacked: the data directory PGlite writes from the tarball, as a new
 * database on disk starts from it (copyTemplateTo).
 */
export function embeddedTemplateDirectory(templateDir: string = DEFAULT_TEMPLATE_DIR): string {
  return join(templateDir, `pglite-template-${embeddedTemplateKey()}`);
}

/**
 * Starts a new on-disk database as a copy of the unpacked template (native file copies into a
 * partial directory renamed into place, so a copy cut short is never taken for a database).
 * PGlite loading the tarball instead unpacks it in JavaScript and WebAssembly: ~100 MB of RSS
 * that an idle first `pnpm start` kept (issue 34). True when it copied; false, leaving
 * everything as it was, when `directory` holds a database or anything else, or when the
 * template was not unpacked (templateFor's tarball then does).
 */
export function copyTemplateTo(directory: string, templateDir: string = DEFAULT_TEMPLATE_DIR): boolean {
  const source = embeddedTemplateDirectory(templateDir);
  if (existsSync(join(directory, "PG_VERSION")) || !existsSync(join(source, "PG_VERSION"))) return false;
  if (existsSync(directory) && readdirSync(directory).length > 0) return false;
  const partial = `${directory}.${process.pid}.partial`;
  try {
    rmSync(partial, { recursive: true, force: true });
    cpSync(source, partial, { recursive: true });
    if (existsSync(directory)) rmdirSync(directory);
    renameSync(partial, directory);
    return true;
  } catch {
    rmSync(partial, { recursive: true, force: true });
    return false;
  }
}

/**
 * The template's tarball when one matching today's schema exists and `directory` holds no
 * database yet (PGlite would otherwise ignore it); else undefined.
 */
export function templateFor(directory: string | null, templateDir: string = DEFAULT_TEMPLATE_DIR): Blob | undefined {
  if (directory !== null && existsSync(join(directory, "PG_VERSION"))) return undefined;
  try {
    return new Blob([readFileSync(embeddedTemplatePath(templateDir))]);
  } catch {
    return undefined;
  }
}

/**
 * Builds the template in memory and writes it under `templateDir` (atomically: a half-written
 * tarball is never read). Returns its path, or the existing one when it is already built.
 */
export async function buildEmbeddedTemplate(templateDir: string = DEFAULT_TEMPLATE_DIR): Promise<{ path: string; built: boolean }> {
  const path = embeddedTemplatePath(templateDir);
  const unpacked = embeddedTemplateDirectory(templateDir);
  if (existsSync(path) && existsSync(join(unpacked, "PG_VERSION"))) return { path, built: false };
  const { PGlite } = require("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
  const { PGliteDialect } = require("kysely-pglite-dialect") as typeof import("kysely-pglite-dialect");
  // Imported here: database.ts loads pg, which the install step does not otherwise need.
  const { migrateToLatest } = require("./database") as typeof import("./database");
  if (!existsSync(path)) {
    const pglite = new PGlite();
    const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
    try {
      await migrateToLatest(db);
      const tarball = Buffer.from(await (await pglite.dumpDataDir("gzip")).arrayBuffer());
      mkdirSync(dirname(path), { recursive: true });
      const partial = `${path}.${process.pid}.partial`;
      writeFileSync(partial, tarball);
      renameSync(partial, path);
    } finally {
      await db.destroy();
    }
  }
  // Unpacked by PGlite itself, as a first start did before: the files are those it would write.
  const partial = `${unpacked}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const loader = new PGlite(partial, { loadDataDir: new Blob([readFileSync(path)]) });
  await loader.waitReady;
  await loader.close();
  rmSync(unpacked, { recursive: true, force: true });
  renameSync(partial, unpacked);
  // Templates of earlier schemas are never read again.
  for (const file of readdirSync(dirname(path))) {
    if (file.startsWith("pglite-template-") && file !== basename(path) && file !== basename(unpacked)) rmSync(join(dirname(path), file), { recursive: true, force: true });
  }
  return { path, built: true };
}
