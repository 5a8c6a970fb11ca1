import { listWebhooks } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { idListPage } from "../../paging/id-page";
import { toWebhookView } from "../../webhooks/webhook.view";

/** GET /v1/webhooks: newest first, keyset-paged, without secrets. */
export const listWebhooksRoute = ({ db }: ApiDeps) =>
  publicRoute("listWebhooks", async ({ auth, query }) => {
    return { status: 200, body: await idListPage(query, "webhook", (page) => listWebhooks(db, auth.project.id, page), toWebhookView) };
  });
