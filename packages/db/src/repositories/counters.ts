import { sql } from "kysely";
import type { Db } from "../database";

/**
 * The counters that follow a project's stored message copies: each inbox's `message_count` and
 * the project's `storage.bytes` meter. The store raises both in its statement; every path that
 * hides or removes message rows (tombstone, erasure, reaper, inbox delete and cleanup) lowers
 * them here, in its own transaction, by the copies that stop being counted: tombstoned, or
 * hard-deleted while not tombstoned (a tombstone was counted out already). So each counter is
 * the count, or the sum of `size`, over the live rows without ever counting them.
 */

/** Lowers each inbox's `message_count` by its copies among `copies`. */
export async function lowerMessageCounts(trx: Db, copies: readonly { inbox_id: string }[]): Promise<void> {
  await lowerCounter(trx, { table: "inboxes", key: "id", column: "message_count" }, copies, (copy) => copy.inbox_id, () => 1);
}

/** Lowers each project's `storage.bytes` meter by the sizes of its copies among `copies`. */
export async function lowerStoredBytes(trx: Db, copies: readonly { project_id: string; size: number }[]): Promise<void> {
  await lowerCounter(trx, { table: "storage_usage", key: "project_id", column: "bytes" }, copies, (copy) => copy.project_id, (copy) => copy.size);
}

/**
 * Lowers `counter.column` of the row whose `counter.key` is each item's key by what the items
 * of that key add up to, never below 0. In key order, as every writer takes these rows: two
 * transactions never wait on each other in a cycle.
 */
async function lowerCounter<T>(
  trx: Db,
  counter: { table: "inboxes" | "storage_usage"; key: string; column: string },
  items: readonly T[],
  keyOf: (item: T) => string,
  amountOf: (item: T) => number,
): Promise<void> {
  const sums = new Map<string, number>();
  for (const item of items) sums.set(keyOf(item), (sums.get(keyOf(item)) ?? 0) + amountOf(item));
  const column = sql.ref(counter.column);
  for (const [key, amount] of [...sums].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await sql`update ${sql.table(counter.table)} set ${column} = greatest(${column} - ${amount}, 0) where ${sql.ref(counter.key)} = ${key}`.execute(trx);
  }
}
