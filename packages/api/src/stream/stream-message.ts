import type { StreamMessageRow } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

export type StreamMessageData = PublicComponents["schemas"]["StreamMessageData"];

/** A message as the event stream's `message` frame shows it (and a webhook's message event): the envelope, subject, codes and links, never a body. */
export function toStreamMessage(row: Omit<StreamMessageRow, "stream_seq">): StreamMessageData {
  return {
    id: row.id,
    inbox_id: row.inbox_id,
    received_at: row.received_at.toISOString(),
    subject: row.subject,
    from: row.from_address === null ? null : { address: row.from_address, name: row.from_name },
    to: row.to,
    correlation_id: row.correlation_id,
    codes: row.codes,
    links: row.links,
  };
}
