import { sql } from "kysely";
import type { Db } from "../database";

/**
 * Lowers the `storage.bytes` meter by the sizes of message copies that stop being stored:
 * tombstoned, or hard-deleted while not tombstoned (a tombstone was counted out already). Every
 * path that hides or removes message rows calls it in its own transaction (tombstone, reaper,
 * inbox delete and cleanup), as the store raises it in its statement, so the meter is the sum
 * of `size` over the project's live rows without ever summing them.
 */
export async function lowerStoredBytes(trx: Db, copies: readonly { project_id: string; size: number }[]): Promise<void> {
  const perProject = new Map<string, number>();
  for (const copy of copies) perProject.set(copy.project_id, (perProject.get(copy.project_id) ?? 0) + copy.size);
  // In key order, as the store takes these rows: two transactions never wait on each other in a cycle.
  for (const [projectId, bytes] of [...perProject].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await trx
      .updateTable("storage_usage")
      .set({ bytes: sql<number>`greatest(bytes - ${bytes}, 0)` })
      .where("project_id", "=", projectId)
      .execute();
  }
}
