import { listReadableMessages } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { decodeCursor, pageOf } from "../../inboxes/cursor";
import { requireInbox } from "../../inboxes/inbox.service";
import { toMessageView } from "../../messages/message.view";

/**
 * GET /v1/messages: newest first, across the project or one inbox, every match filter ANDed.
 * Previews are empty in lists; sizes and urls stay.
 */
export const listMessagesRoute = ({ db, config, blobs }: ApiDeps) =>
  publicRoute("listMessages", async ({ auth, query }) => {
    const inbox = query.inbox === undefined ? undefined : await requireInbox(db, auth.project.id, query.inbox);
    const limit = query.limit ?? 50;
    const rows = await listReadableMessages(
      db,
      auth.project.id,
      {
        ...(inbox === undefined ? {} : { inboxId: inbox.id }),
        ...(query.subject_contains === undefined ? {} : { subjectContains: query.subject_contains }),
        ...(query.from_contains === undefined ? {} : { fromContains: query.from_contains }),
        ...(query.to_contains === undefined ? {} : { toContains: query.to_contains }),
        ...(query.body_contains === undefined ? {} : { bodyContains: query.body_contains }),
        ...(query.correlation_id === undefined ? {} : { correlationId: query.correlation_id }),
        ...(query.header_contains === undefined ? {} : { headerContains: query.header_contains }),
        ...(query.since === undefined ? {} : { since: new Date(query.since) }),
        ...(query.has_code === undefined ? {} : { hasCode: query.has_code }),
        ...(query.has_link_kind === undefined ? {} : { hasLinkKind: query.has_link_kind }),
        ...(query.message_id === undefined ? {} : { messageId: query.message_id }),
      },
      { beforeSeq: decodeCursor(query.cursor, (position) => /^\d{1,18}$/.test(position)), limit: limit + 1 },
    );
    const page = pageOf(rows, limit, (record) => String(record.row.seq));
    const data = await Promise.all(page.items.map((record) => toMessageView(record, { formats: [], previewChars: 0, origin: config.http.publicUrl, blobs })));
    return { status: 200, body: { data, limit, next_cursor: page.nextCursor } };
  });
