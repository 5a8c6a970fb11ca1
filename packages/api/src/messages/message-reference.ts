import { MailstopError, isId } from "@mailstop/core";
import { type Db, type MessageRecord, findReadableMessage } from "@mailstop/db";

/** The project's readable message, or `message_not_found` (unknown, erased, expired or not yet visible). */
export async function requireMessage(db: Db, projectId: string, id: string): Promise<MessageRecord> {
  const record = isId("message", id) ? await findReadableMessage(db, projectId, id) : null;
  if (record === null) throw new MailstopError("message_not_found", `No message ${id} in this project.`);
  return record;
}
