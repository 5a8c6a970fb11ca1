import type { Inbox } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

export type InboxView = PublicComponents["schemas"]["Inbox"];

/** The inbox view (schema `Inbox`). `expires_at` is always null: inboxes live until deleted (docs/inboxes-and-addresses.md). */
export function toInboxView(inbox: Inbox): InboxView {
  return {
    id: inbox.id,
    address: inbox.address,
    tag: inbox.tag,
    domain: inbox.domain,
    labels: inbox.labels,
    retention_seconds: inbox.retentionSeconds,
    expires_at: null,
    created_at: inbox.createdAt.toISOString(),
    last_message_at: inbox.lastMessageAt?.toISOString() ?? null,
    message_count: inbox.messageCount,
  };
}
