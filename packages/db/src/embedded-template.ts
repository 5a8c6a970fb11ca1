import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Kysely } from "kysely";
import { MIGRATIONS } from "./migrations";

/**
 * A pre-built PGlite data directory with every migration applied, so a fresh embedded database
 * starts from a tarball (≈0.6 s) instead of running initdb and the migrations (≈4 s on two
 * cores). It holds no tenant data: the first-start bootstrap still runs on the copy.
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
  if (existsSync(path)) return { path, built: false };
  const { PGlite } = require("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
  const { PGliteDialect } = require("kysely-pglite-dialect") as typeof import("kysely-pglite-dialect");
  // Imported here: database.ts loads pg, which the install step does not otherwise need.
  const { migrateToLatest } = require("./database") as typeof import("./database");
  const pglite = new PGlite();
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  try {
    await migrateToLatest(db);
    const tarball = Buffer.from(await (await pglite.dumpDataDir("gzip")).arrayBuffer());
    mkdirSync(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, tarball);
    renameSync(partial, path);
    // Templates of earlier schemas are never read again.
    for (const file of readdirSync(dirname(path))) {
      if (file.startsWith("pglite-template-") && join(dirname(path), file) !== path) rmSync(join(dirname(path), file), { force: true });
    }
    return { path, built: true };
  } finally {
    await db.destroy();
  }
}
