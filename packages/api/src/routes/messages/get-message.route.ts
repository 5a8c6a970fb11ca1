import { type ApiDeps, publicRoute } from "../../deps";
import { requireMessage } from "../../messages/message-reference";
import { toMessageView } from "../../messages/message.view";

/** GET /v1/messages/{id}: the message view; `format` adds parts, `preview_chars` is clamped at 100000. */
export const getMessageRoute = ({ db, config, blobs }: ApiDeps) =>
  publicRoute("getMessage", async ({ auth, params, query }) => {
    const record = await requireMessage(db, auth.project.id, params.id);
    const view = await toMessageView(record, {
      formats: query.format ?? [],
      previewChars: query.preview_chars ?? 2000,
      origin: config.http.publicUrl,
      blobs,
    });
    return { status: 200, body: view };
  });
