import { listReadableMessages } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { decodeCursor, pageOf } from "../../paging/cursor";
import { requireInbox } from "../../inboxes/inbox.service";
import { messageFilterFrom } from "../../messages/message-filter";
import { toMessageView } from "../../messages/message.view";

/**
 * GET /v1/messages: newest first, across the project or one inbox, every match filter ANDed.
 * Previews are empty in lists; sizes and urls stay.
 */
export const listMessagesRoute = ({ db, config, blobs }: ApiDeps) =>
  publicRoute("listMessages", async ({ auth, query }) => {
    const inbox = query.inbox === undefined ? undefined : await requireInbox(db, auth.project.id, query.inbox, { projectKey: auth.project.key, sharedDomain: config.sharedDomain });
    const limit = query.limit ?? 50;
    const rows = await listReadableMessages(
      db,
      auth.project.id,
      { ...messageFilterFrom(query), ...(inbox === undefined ? {} : { inboxId: inbox.id }) },
      { beforeSeq: decodeCursor(query.cursor, (position) => /^\d{1,18}$/.test(position)), limit: limit + 1 },
    );
    const page = pageOf(rows, limit, (record) => record.seq);
    const data = await Promise.all(page.items.map((record) => toMessageView(record, { formats: [], previewChars: 0, origin: config.http.publicUrl, blobs })));
    return { status: 200, body: { data, limit, next_cursor: page.nextCursor } };
  });
