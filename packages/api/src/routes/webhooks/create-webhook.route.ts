import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { createWebhook } from "../../webhooks/webhook.service";
import { toWebhookWithSecretView } from "../../webhooks/webhook.view";

/** POST /v1/webhooks: registers an endpoint; its secret is shown in this answer only (and by rotate-secret). */
export const createWebhookRoute = ({ db, webhooks }: ApiDeps) =>
  publicRoute("createWebhook", async ({ auth, body, requestId }) => {
    const { webhook, secret } = await createWebhook(db, webhooks, auth.project.id, body, keySource({ auth, requestId }));
    return { status: 201, body: toWebhookWithSecretView(webhook, secret) };
  });
