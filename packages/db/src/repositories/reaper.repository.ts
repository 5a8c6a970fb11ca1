import { sql } from "kysely";
import type { Db } from "../database";
import { lowerMessageCounts, lowerStoredBytes } from "./counters";

/**
 * Queues for deletion the object prefixes (`projects/<p>/tx/<t>/`, everything up to the raw
 * key's last slash) of these raw keys that no message row uses any more. Called in the
 * transaction that deleted the rows.
 */
export async function queueUnusedBlobs(trx: Db, rawKeys: readonly string[]): Promise<void> {
  const keys = [...new Set(rawKeys)];
  if (keys.length === 0) return;
  await sql`
    insert into blob_deletions (prefix)
    select distinct left(k, length(k) - length(regexp_replace(k, '^.*/', ''))) from unnest(${keys}::text[]) as k
    where not exists (select 1 from messages m where m.raw_key = k)
    on conflict (prefix) do nothing`.execute(trx);
}

/**
 * Deletes up to `limit` tombstoned or expired messages (skipping rows other reapers hold) and
 * their finished webhook deliveries, lowers their inboxes' counts and the storage.bytes meter
 * for expired ones (tombstones were counted out when erased), and queues their unused objects.
 * Returns how many rows went.
 */
export async function reapMessages(db: Db, limit: number, now = new Date()): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const doomed = await trx
      .selectFrom("messages")
      .select(["id", "raw_key", "inbox_id", "project_id", "deleted_at", "size"])
      .where((eb) => eb.or([eb("deleted_at", "is not", null), eb("expires_at", "<=", now)]))
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (doomed.length === 0) return 0;
    const ids = doomed.map((row) => row.id);
    await trx.deleteFrom("messages").where("id", "in", ids).execute();
    // The finished webhook deliveries of these messages go with them: their stored bodies tell
    // of the message (sender, subject, codes, links) and must not outlive it. A pending one
    // stays until its next attempt finds the message gone and drops it, which the log shows.
    await trx.deleteFrom("webhook_deliveries").where("subject_id", "in", ids).where("state", "<>", "pending").execute();
    const expired = doomed.filter((row) => row.deleted_at === null);
    await lowerMessageCounts(trx, expired);
    await lowerStoredBytes(trx, expired);
    await queueUnusedBlobs(trx, doomed.map((row) => row.raw_key));
    return doomed.length;
  });
}

export async function pendingBlobDeletions(db: Db, limit: number): Promise<string[]> {
  const rows = await db.selectFrom("blob_deletions").select("prefix").orderBy("created_at").limit(limit).execute();
  return rows.map((row) => row.prefix);
}

export async function completeBlobDeletions(db: Db, prefixes: readonly string[]): Promise<void> {
  if (prefixes.length > 0) await db.deleteFrom("blob_deletions").where("prefix", "in", [...prefixes]).execute();
}
