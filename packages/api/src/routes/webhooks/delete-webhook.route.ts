import { isId } from "@mailstop/core";
import { deleteWebhook } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { webhookNotFound } from "../../webhooks/webhook.service";

/** DELETE /v1/webhooks/{id}: the endpoint, its queued deliveries and its attempt log. */
export const deleteWebhookRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteWebhook", async ({ auth, params }) => {
    if (!isId("webhook", params.id) || !(await deleteWebhook(db, auth.project.id, params.id))) throw webhookNotFound(params.id);
    return { status: 200, body: { id: params.id, deleted: true } };
  });
