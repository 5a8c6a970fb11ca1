import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { rotateSecret } from "../../webhooks/webhook.service";
import { toWebhookWithSecretView } from "../../webhooks/webhook.view";

/** POST /v1/webhooks/{id}/rotate-secret: a new secret, shown here; the old one signs beside it for 24 h. */
export const rotateWebhookSecretRoute = ({ db, webhooks }: ApiDeps) =>
  publicRoute("rotateWebhookSecret", async ({ auth, params, requestId }) => {
    const { webhook, secret } = await rotateSecret(db, webhooks.secrets, auth.project.id, params.id, keySource({ auth, requestId }));
    return { status: 200, body: toWebhookWithSecretView(webhook, secret) };
  });
