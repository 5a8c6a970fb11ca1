import { type Selectable, sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Db } from "../database";
import type { Database } from "../tables";

export interface AttachmentRecord {
  id: string;
  position: number;
  filename: string | null;
  contentType: string;
  size: number;
  blobKey: string;
}

/** A message as reads see it, with its inbox's address and its attachments. */
export interface MessageRecord {
  row: Selectable<Database["messages"]>;
  inboxAddress: string;
  attachments: AttachmentRecord[];
}

/**
 * The project's message `id` when a read may see it: not tombstoned, already visible
 * (`sim.delay`) and not expired. One query, attachments included.
 */
export async function findReadableMessage(db: Db, projectId: string, id: string, now = new Date()): Promise<MessageRecord | null> {
  const found = await db
    .selectFrom("messages as m")
    .innerJoin("inboxes as i", "i.id", "m.inbox_id")
    .selectAll("m")
    .select("i.address as inbox_address")
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom("attachments as a")
          .select(["a.id", "a.position", "a.filename", "a.content_type", "a.size", "a.blob_key"])
          .whereRef("a.message_id", "=", "m.id")
          .orderBy("a.position"),
      ).as("attachment_rows"),
    )
    .where("m.project_id", "=", projectId)
    .where("m.id", "=", id)
    .where("m.deleted_at", "is", null)
    .where("m.visible_at", "<=", now)
    .where("m.expires_at", ">", now)
    .executeTakeFirst();
  if (!found) return null;
  const { inbox_address, attachment_rows, ...row } = found;
  return {
    row,
    inboxAddress: inbox_address,
    attachments: attachment_rows.map((a) => ({
      id: a.id,
      position: a.position,
      filename: a.filename,
      contentType: a.content_type,
      size: a.size,
      blobKey: a.blob_key,
    })),
  };
}

/**
 * Tombstones a readable message at once (it vanishes from reads, lists and waits); its bytes
 * are removed later by the reaper. False when there is no such readable message.
 */
export async function tombstoneMessage(db: Db, projectId: string, id: string, now = new Date()): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const erased = await trx
      .updateTable("messages")
      .set({ deleted_at: now })
      .where("project_id", "=", projectId)
      .where("id", "=", id)
      .where("deleted_at", "is", null)
      .where("visible_at", "<=", now)
      .where("expires_at", ">", now)
      .returning("inbox_id")
      .executeTakeFirst();
    if (!erased) return false;
    await trx
      .updateTable("inboxes")
      .set({ message_count: sql<number>`greatest(message_count - 1, 0)` })
      .where("project_id", "=", projectId)
      .where("id", "=", erased.inbox_id)
      .execute();
    return true;
  });
}
