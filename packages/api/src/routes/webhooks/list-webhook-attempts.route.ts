import { listWebhookAttempts } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { idListPage } from "../../paging/id-page";
import { requireWebhook } from "../../webhooks/webhook.service";
import { toWebhookAttemptView } from "../../webhooks/webhook.view";

/** GET /v1/webhooks/{id}/attempts: the endpoint's attempt log, newest first, keyset-paged. */
export const listWebhookAttemptsRoute = ({ db }: ApiDeps) =>
  publicRoute("listWebhookAttempts", async ({ auth, params, query }) => {
    const webhook = await requireWebhook(db, auth.project.id, params.id);
    const body = await idListPage(query, "webhookAttempt", (page) => listWebhookAttempts(db, auth.project.id, webhook.id, page), toWebhookAttemptView);
    return { status: 200, body };
  });
