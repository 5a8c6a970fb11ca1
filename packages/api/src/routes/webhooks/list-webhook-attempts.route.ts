import { isId } from "@mailstop/core";
import { listWebhookAttempts } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { decodeCursor, pageOf } from "../../inboxes/cursor";
import { requireWebhook } from "../../webhooks/webhook.service";
import { toWebhookAttemptView } from "../../webhooks/webhook.view";

/** GET /v1/webhooks/{id}/attempts: the endpoint's attempt log, newest first, keyset-paged. */
export const listWebhookAttemptsRoute = ({ db }: ApiDeps) =>
  publicRoute("listWebhookAttempts", async ({ auth, params, query }) => {
    const webhook = await requireWebhook(db, auth.project.id, params.id);
    const limit = query.limit ?? 50;
    const beforeId = decodeCursor(query.cursor, (position) => isId("webhookAttempt", position));
    const rows = await listWebhookAttempts(db, auth.project.id, webhook.id, { beforeId, limit: limit + 1 });
    const page = pageOf(rows, limit, (attempt) => attempt.id);
    return { status: 200, body: { data: page.items.map(toWebhookAttemptView), limit, next_cursor: page.nextCursor } };
  });
