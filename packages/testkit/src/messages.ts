import { sql } from "kysely";
import { newId } from "@mailstop/core";
import type { Db } from "@mailstop/db";

/**
 * Files `count` received message rows straight into an inbox, for tests of what happens to an
 * inbox's messages (deletion counts, reuse) without sending mail through SMTP and the parser.
 */
export async function insertMessageRows(db: Db, inbox: { id: string; address: string }, projectId: string, count: number): Promise<string[]> {
  const now = Date.now();
  const ids = Array.from({ length: count }, () => newId("message"));
  await db
    .insertInto("messages")
    .values(
      ids.map((id, i) => ({
        id,
        project_id: projectId,
        inbox_id: inbox.id,
        kind: "received" as const,
        raw_key: `raw/${id}`,
        size: 100 + i,
        envelope_to: inbox.address,
        subject: `message ${i}`,
        to: JSON.stringify([{ address: inbox.address, name: null }]),
        received_at: new Date(now),
        visible_at: new Date(now),
        stream_seq: sql<string>`nextval('message_stream_seq')`,
        expires_at: new Date(now + 86_400_000),
      })),
    )
    .execute();
  return ids;
}
