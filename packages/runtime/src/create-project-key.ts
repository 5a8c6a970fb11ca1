import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "@mailstop/config";
import { systemSource } from "@mailstop/core";
import { type Db, createDatabase, createEmbeddedDatabase, findProjectByKey, migrateToLatest } from "@mailstop/db";
import { type IssuedApiKey, issueApiKey } from "@mailstop/api/src/provisioning/credentials";
import { DataDirInUseError, lockDataDir } from "./data-dir-lock";

/** A refusal of `mailstop keys create` whose message says what to do; printed as it is. */
export class KeysCreateError extends Error {}

/**
 * A new API key for an existing project, written straight into the installation's database
 * (docs/operator.md "A new key for an existing project"): the data directory of the monolith
 * without DATABASE_URL, else DATABASE_URL. Every scope, `test`; audited as `api_key.created` by
 * the system actor `keys-create`. The data directory is PGlite's, which one process opens: a
 * mailstop running on it holds it, and the command says to stop it first.
 */
export async function createProjectKey(config: Config, projectKey: string): Promise<IssuedApiKey & { projectId: string }> {
  const { db, release } = openDatabase(config);
  try {
    // As a start does: a data directory an older mailstop left is brought to the schema this
    // code writes keys in (safe beside running instances on PostgreSQL, as a start is).
    await migrateToLatest(db);
    const project = await findProjectByKey(db, projectKey);
    if (project === null) throw new KeysCreateError(`no project \`${projectKey}\` in ${where(config)}: check the key (a first start creates \`local\`), or create a project with \`mailstop admin bootstrap\`.`);
    const issued = await issueApiKey(db, project.id, {}, systemSource("keys-create"));
    return { ...issued, projectId: project.id };
  } finally {
    try {
      await db.destroy();
    } finally {
      release();
    }
  }
}

const where = (config: Config) => (config.databaseUrl === null ? `the data directory ${config.dataDir}` : "the database of DATABASE_URL");

function openDatabase(config: Config): { db: Db; release: () => void } {
  if (config.databaseUrl !== null) return { db: createDatabase(config.databaseUrl, { maxConnections: 1 }), release: () => undefined };
  const directory = join(config.dataDir, "pglite");
  // Opening a missing one would create an empty database only to find no project in it.
  if (!existsSync(join(directory, "PG_VERSION"))) {
    throw new KeysCreateError(`no mailstop database in the data directory ${config.dataDir} (MAILSTOP_DATA_DIR): start mailstop once (its first start creates the project \`local\` and prints its key), or point MAILSTOP_DATA_DIR or DATABASE_URL at the installation.`);
  }
  let release: () => void;
  try {
    release = lockDataDir(config.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    throw new KeysCreateError(
      `the data directory ${config.dataDir} is in use by a running mailstop (pid ${error.pid}): PGlite opens it in one process only. Stop that mailstop first, run this again, then start it again.`,
    );
  }
  return { db: createEmbeddedDatabase(directory), release };
}
