import { captureTag } from "@mailstop/core";
import { sql } from "kysely";
import type { Db } from "../database";
import { inTransaction } from "../database";
import { deleteLockedInboxIds } from "./inbox.repository";
import { lowerMessageCounts, lowerStoredBytes } from "./counters";
import { tombstoneLiveMessages } from "./message-read.repository";
import { type RaisedDelivery, forgetMessageDeliveries } from "./webhook.repository";

/** What one erasure removed. */
export interface Erased {
  messagesErased: number;
  /** Capture inboxes named after the address, deleted with their messages. */
  captureInboxesDeleted: number;
  /** The erased messages' pending webhook deliveries, now due: the caller dispatches them once committed. */
  dueDeliveries: RaisedDelivery[];
}

/**
 * Erases an address from a project, in one transaction (docs/decisions.md "Erasure reaches
 * every copy"):
 * - tombstones every live message sent from or to it (compared lower-cased): its envelope
 *   sender or recipient, or an address of its From, To or Cc header. Hidden (`sim.delay`)
 *   copies go too; expired ones are already gone from reads and left to the reaper. Reads lose
 *   them at once, their inboxes' counts and `storage.bytes` drop at once, and the reaper
 *   removes the rows and bytes later;
 * - their webhook deliveries lose their stored bodies (a pending one is dropped at its next
 *   attempt, due at once) and their attempts the receiver's answers;
 * - the capture inboxes named after the address (tag or `labels.recipient`) are deleted;
 * - the accept ledger's finished rows of the project lose the address (sender and recipients).
 */
export async function eraseAddress(db: Db, projectId: string, address: string, now = new Date()): Promise<Erased> {
  const wanted = address.toLowerCase();
  return inTransaction(db, async (trx) => {
    const erased = await tombstoneLiveMessages(trx, projectId, now, (eb) =>
      eb.or([
        eb(eb.fn("lower", ["envelope_from"]), "=", wanted),
        eb(eb.fn("lower", ["envelope_to"]), "=", wanted),
        eb(eb.fn("lower", ["from_address"]), "=", wanted),
        sql<boolean>`exists (select 1 from jsonb_array_elements(messages."to" || messages.cc) e where lower(e->>'address') = ${wanted})`,
      ]),
    );
    const captureInboxIds = await captureInboxesOf(trx, projectId, wanted);
    // Every inbox this touches is locked first, in id order, as every writer of inbox rows
    // locks them, and before the storage meter below (the store takes inbox, then meter): two
    // erasures, or an erasure and a store, never wait on each other in a cycle.
    const touched = [...new Set([...erased.map((row) => row.inbox_id), ...captureInboxIds])].sort();
    if (touched.length > 0) await trx.selectFrom("inboxes").select("id").where("project_id", "=", projectId).where("id", "in", touched).orderBy("id").forUpdate().execute();
    await lowerMessageCounts(trx, erased);
    await lowerStoredBytes(trx, erased);
    const dueDeliveries = await forgetMessageDeliveries(trx, projectId, erased.map((row) => row.id));
    const deleted = await deleteLockedInboxIds(trx, projectId, captureInboxIds);
    await scrubLedger(trx, projectId, wanted);
    return { messagesErased: erased.length, captureInboxesDeleted: deleted.inboxesDeleted, dueDeliveries };
  });
}

/**
 * The project's capture inboxes named after the (lower-cased) address: the capture relay's
 * tag for it, or a capture tag whose `labels.recipient` is the address (a tag made from an
 * address the encoding could not keep apart from another still carries the address there).
 * An inbox the user created is never one, whatever its labels say.
 */
async function captureInboxesOf(trx: Db, projectId: string, address: string): Promise<string[]> {
  const tag = captureTag(address);
  const rows = await trx
    .selectFrom("inboxes")
    .select("id")
    .where("project_id", "=", projectId)
    .where((eb) =>
      eb.or([
        ...(tag === null ? [] : [eb("tag", "=", tag)]),
        eb.and([eb("tag", "like", "capture.%"), eb(sql<string>`lower(labels->>'recipient')`, "=", address)]),
      ]),
    )
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Removes the address from the accept ledger's finished rows that carry a delivery of the
 * project: the envelope sender when it is the address, and the project's recipients that are.
 * Open rows are left whole: their parse still needs them, and the messages they store arrive
 * after this erasure (docs/decisions.md). Done rows are pruned by age anyway; this is for the
 * days until then. No index serves it: an erasure is rare, and the table holds only recent rows.
 */
async function scrubLedger(trx: Db, projectId: string, address: string): Promise<void> {
  const ofProject = JSON.stringify([{ project_id: projectId }]);
  await sql`
    update accepted_transactions set
      envelope_from = case when lower(envelope_from) = ${address} then null else envelope_from end,
      deliveries = (
        select jsonb_agg(
          case when d->>'project_id' = ${projectId}
            then jsonb_set(d, '{recipients}', coalesce(
              (select jsonb_agg(r order by n) from jsonb_array_elements(d->'recipients') with ordinality as rs(r, n) where lower(r->>'address') <> ${address}),
              '[]'::jsonb))
            else d end
          order by i)
        from jsonb_array_elements(deliveries) with ordinality as ds(d, i))
    where state = 'done'
      and deliveries @> ${ofProject}::jsonb
      and (lower(envelope_from) = ${address}
        or exists (
          select 1 from jsonb_array_elements(deliveries) d, jsonb_array_elements(d->'recipients') r
          where d->>'project_id' = ${projectId} and lower(r->>'address') = ${address}))`.execute(trx);
}
