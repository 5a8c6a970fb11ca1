import { isId } from "@mailstop/core";
import { listWebhooks } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { decodeCursor, pageOf } from "../../inboxes/cursor";
import { toWebhookView } from "../../webhooks/webhook.view";

/** GET /v1/webhooks: newest first, keyset-paged, without secrets. */
export const listWebhooksRoute = ({ db }: ApiDeps) =>
  publicRoute("listWebhooks", async ({ auth, query }) => {
    const limit = query.limit ?? 50;
    const rows = await listWebhooks(db, auth.project.id, { beforeId: decodeCursor(query.cursor, (position) => isId("webhook", position)), limit: limit + 1 });
    const page = pageOf(rows, limit, (webhook) => webhook.id);
    return { status: 200, body: { data: page.items.map(toWebhookView), limit, next_cursor: page.nextCursor } };
  });
