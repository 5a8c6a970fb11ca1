import type { MessageFilter } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";

export type MessageMatch = PublicComponents["schemas"]["MessageMatch"];

/** The match fields of a wait body or a list query, as the repository's filter. */
export function messageFilterFrom(match: MessageMatch): MessageFilter {
  return {
    ...(match.subject_contains === undefined ? {} : { subjectContains: match.subject_contains }),
    ...(match.from_contains === undefined ? {} : { fromContains: match.from_contains }),
    ...(match.to_contains === undefined ? {} : { toContains: match.to_contains }),
    ...(match.body_contains === undefined ? {} : { bodyContains: match.body_contains }),
    ...(match.correlation_id === undefined ? {} : { correlationId: match.correlation_id }),
    ...(match.header_contains === undefined ? {} : { headerContains: match.header_contains }),
    ...(match.since === undefined ? {} : { since: new Date(match.since) }),
    ...(match.has_code === undefined ? {} : { hasCode: match.has_code }),
    ...(match.has_link_kind === undefined ? {} : { hasLinkKind: match.has_link_kind }),
    ...(match.message_id === undefined ? {} : { messageId: match.message_id }),
  };
}
