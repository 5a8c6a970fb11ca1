import { newId } from "@mailstop/core";
import { createFreshDatabase, dropDatabase, runServerUrl } from "@mailstop/testkit";
import { type Db, createDatabase, migrateToLatest } from "../index";
import { insertOrganisation, insertProject } from "./tenancy.repository";

/** A repository suite's own database (see {@link useRepositoryDatabase}). */
export interface RepositoryDatabase {
  readonly db: Db;
  /** The id of the project made for `key` (known at once; the row exists from `beforeAll` on). */
  projectId(key: string): string;
}

/**
 * A migrated database of the enclosing suite's own on the run's PostgreSQL, with one
 * organisation holding a project for each of `projectKeys`: made in `beforeAll`, dropped in
 * `afterAll`, so the suite's rows never meet another's. Its pool holds `maxConnections` (4
 * unless told).
 */
export function useRepositoryDatabase(prefix: string, projectKeys: readonly string[] = [], { maxConnections = 4 } = {}): RepositoryDatabase {
  const serverUrl = runServerUrl();
  let database: { name: string; url: string } | undefined;
  let db: Db | undefined;
  const projects = new Map(projectKeys.map((key) => [key, newId("project")]));
  beforeAll(async () => {
    database = await createFreshDatabase(serverUrl, prefix);
    db = createDatabase(database.url, { maxConnections });
    await migrateToLatest(db);
    if (projectKeys.length === 0) return;
    const organisation = await insertOrganisation(db, { id: newId("organisation"), name: prefix });
    for (const [key, id] of projects) await insertProject(db, { id, organisationId: organisation.id, key, region: "us" });
  });
  afterAll(async () => {
    await db?.destroy();
    if (database !== undefined) await dropDatabase(serverUrl, database.name);
  });
  return {
    get db() {
      if (db === undefined) throw new Error("the suite's database is not made yet: read it in a test");
      return db;
    },
    projectId(key) {
      const id = projects.get(key);
      if (id === undefined) throw new Error(`no project ${key} in the suite's database`);
      return id;
    },
  };
}
