import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { patchWebhook } from "../../webhooks/webhook.service";
import { toWebhookView } from "../../webhooks/webhook.view";

/** PATCH /v1/webhooks/{id}: url, events, description, enabled; enabling clears `disabled_reason`. */
export const updateWebhookRoute = ({ db, webhooks }: ApiDeps) =>
  publicRoute("updateWebhook", async ({ auth, params, body, requestId }) => ({
    status: 200,
    body: toWebhookView(await patchWebhook(db, webhooks.targets, auth.project.id, params.id, body, keySource({ auth, requestId }))),
  }));
