import type { MessageRecord } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

export type MessageChecksView = PublicComponents["schemas"]["MessageChecks"];
type CheckStatuses = PublicComponents["schemas"]["MessageCheckStatuses"];

// Links are checked only when asked, and spam only with spamd configured (docs/api.md
// "Message checks"): what a message without either reads.
const LINKS_NOT_CHECKED: MessageChecksView["links"] = { status: "not_checked", checked_at: null, results: [] };
const SPAM_NOT_CONFIGURED: MessageChecksView["spam"] = { status: "not_configured", score: null, threshold: null, rules: [] };

/** A message's checks in full (schema `MessageChecks`): null for what was not checked when it was stored. */
export function toMessageChecks(record: MessageRecord): MessageChecksView {
  return {
    message_id: record.id,
    authentication: record.checks?.authentication ?? null,
    html: record.checks?.html ?? null,
    links: record.checks?.links ?? LINKS_NOT_CHECKED,
    spam: record.checks?.spam ?? SPAM_NOT_CONFIGURED,
  };
}

/** Each check's status, for the message view's `checks`. */
export function checkStatuses(record: MessageRecord): CheckStatuses {
  return {
    authentication: record.checks?.authentication?.status ?? null,
    html: record.checks?.html?.status ?? null,
    links: record.checks?.links?.status ?? LINKS_NOT_CHECKED.status,
    spam: record.checks?.spam?.status ?? SPAM_NOT_CONFIGURED.status,
  };
}
