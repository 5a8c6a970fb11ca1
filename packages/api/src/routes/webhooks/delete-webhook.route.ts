import { isId } from "@mailstop/core";
import { audited, deleteWebhook } from "@mailstop/db";
import { keySource } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";
import { webhookAudit, webhookNotFound } from "../../webhooks/webhook.service";

/** DELETE /v1/webhooks/{id}: the endpoint, its queued deliveries and its attempt log; audited as `webhook.deleted`. */
export const deleteWebhookRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteWebhook", async ({ auth, params, requestId }) => {
    const deleted =
      isId("webhook", params.id) &&
      (await audited(
        db,
        (trx) => deleteWebhook(trx, auth.project.id, params.id),
        (done) => webhookAudit(keySource({ auth, requestId }), "webhook.deleted", done ? { id: params.id, projectId: auth.project.id } : null),
      ));
    if (!deleted) throw webhookNotFound(params.id);
    return { status: 200, body: { id: params.id, deleted: true } };
  });
