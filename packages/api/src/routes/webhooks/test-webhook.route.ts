import { type ApiDeps, publicRoute } from "../../deps";
import { queueTestEvent } from "../../webhooks/webhook.service";

/** POST /v1/webhooks/{id}/test: queues a `webhook.test` event; the parser service delivers it. */
export const testWebhookRoute = ({ db, logger, webhooks }: ApiDeps) =>
  publicRoute("testWebhook", async ({ auth, params }) => ({ status: 202, body: { event_id: await queueTestEvent({ db, logger, queue: webhooks.queue }, auth.project.id, params.id) } }));
