import type { Db } from "../database";

/** A project by its key (the one in shared-domain addresses), for the operator's command line; null when none has it. */
export async function findProjectByKey(db: Db, key: string): Promise<{ id: string; key: string } | null> {
  return (await db.selectFrom("projects").select(["id", "key"]).where("key", "=", key).executeTakeFirst()) ?? null;
}
