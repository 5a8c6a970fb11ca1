import { type ApiDeps, publicRoute } from "../../deps";
import { requireWebhook } from "../../webhooks/webhook.service";
import { toWebhookView } from "../../webhooks/webhook.view";

/** GET /v1/webhooks/{id} */
export const getWebhookRoute = ({ db }: ApiDeps) =>
  publicRoute("getWebhook", async ({ auth, params }) => ({ status: 200, body: toWebhookView(await requireWebhook(db, auth.project.id, params.id)) }));
