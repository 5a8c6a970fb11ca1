import { sql } from "kysely";
import type { Db } from "../database";
import { inTransaction } from "../database";
import { lowerStoredBytes } from "./storage-usage.repository";

/**
 * Tombstones every live message of the project sent from or to `address` (compared
 * lower-cased): its envelope sender or recipient, or an address of its From, To or Cc header.
 * Hidden (`sim.delay`) copies go too; expired ones are already gone from reads and left to the
 * reaper. As with one deleted message, reads lose them at once, their inboxes' counts drop, and
 * the reaper removes the rows and bytes later; `storage.bytes` drops at once. Returns how many
 * were erased.
 */
export async function eraseMessagesOf(db: Db, projectId: string, address: string, now = new Date()): Promise<number> {
  const wanted = address.toLowerCase();
  return inTransaction(db, async (trx) => {
    const erased = await trx
      .updateTable("messages as m")
      .set({ deleted_at: now })
      .where("m.project_id", "=", projectId)
      .where("m.deleted_at", "is", null)
      .where("m.expires_at", ">", now)
      .where((eb) =>
        eb.or([
          eb(eb.fn("lower", ["m.envelope_from"]), "=", wanted),
          eb(eb.fn("lower", ["m.envelope_to"]), "=", wanted),
          eb(eb.fn("lower", ["m.from_address"]), "=", wanted),
          sql<boolean>`exists (select 1 from jsonb_array_elements(m."to" || m.cc) e where lower(e->>'address') = ${wanted})`,
        ]),
      )
      .returning(["m.inbox_id", "m.project_id", "m.size"])
      .execute();
    const perInbox = new Map<string, number>();
    for (const row of erased) perInbox.set(row.inbox_id, (perInbox.get(row.inbox_id) ?? 0) + 1);
    // In id order, as every writer of inbox rows locks them, so two erasures never deadlock.
    for (const [inboxId, count] of [...perInbox].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await trx
        .updateTable("inboxes")
        .set({ message_count: sql<number>`greatest(message_count - ${count}, 0)` })
        .where("project_id", "=", projectId)
        .where("id", "=", inboxId)
        .execute();
    }
    // After the inbox rows, as the store takes them (inbox, then meter): no lock cycle.
    await lowerStoredBytes(trx, erased);
    return erased.length;
  });
}
