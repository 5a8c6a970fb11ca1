import { MailstopError, isId } from "@mailstop/core";
import { tombstoneMessage } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";

/** DELETE /v1/messages/{id}: tombstoned at once; the reaper removes the bytes later. */
export const deleteMessageRoute = ({ db }: ApiDeps) =>
  publicRoute("deleteMessage", async ({ auth, params }) => {
    if (!isId("message", params.id) || !(await tombstoneMessage(db, auth.project.id, params.id))) {
      throw new MailstopError("message_not_found", `No message ${params.id} in this project.`);
    }
    return { status: 200, body: { id: params.id, erased: true } };
  });
