import { type ApiDeps, publicRoute } from "../../deps";
import { toMessageChecks } from "../../messages/message-checks.view";
import { requireMessage } from "../../messages/message-reference";

/** GET /v1/messages/{id}/checks: what mailstop checked of the message (authentication, HTML support, links, spam). */
export const getMessageChecksRoute = ({ db }: ApiDeps) =>
  publicRoute("getMessageChecks", async ({ auth, params }) => {
    const record = await requireMessage(db, auth.project.id, params.id);
    return { status: 200, body: toMessageChecks(record) };
  });
