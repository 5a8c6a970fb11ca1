import { MailstopError, isId } from "@mailstop/core";
import { tombstoneMessage } from "@mailstop/db";
import { auditedByKey } from "../../audit/audit-source";
import { type ApiDeps, publicRoute } from "../../deps";

/** DELETE /v1/messages/{id}: tombstoned at once (audited as `message.deleted`); the reaper removes the bytes later. */
export const deleteMessageRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteMessage", async ({ auth, params, requestId }) => {
    const erased =
      isId("message", params.id) &&
      (await auditedByKey(db, { auth, requestId }, (trx) => tombstoneMessage(trx, auth.project.id, params.id), (done) =>
        done ? { action: "message.deleted", target: { type: "message", id: params.id } } : null,
      ));
    if (!erased) throw new MailstopError("message_not_found", `No message ${params.id} in this project.`);
    return { status: 200, body: { id: params.id, erased: true } };
  });
