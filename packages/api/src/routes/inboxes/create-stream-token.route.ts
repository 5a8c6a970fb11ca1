import { generateStreamToken, sha256 } from "@mailstop/core";
import { insertStreamToken } from "@mailstop/db";
import { type ApiDeps, publicRoute } from "../../deps";
import { requireInbox } from "../../inboxes/inbox.service";

/**
 * POST /v1/inboxes/{id}/stream-token: a short-lived credential that opens only this inbox's
 * event stream. Stored as its SHA-256 digest and tied to the minting key, so revoking the key
 * ends it; shown once.
 */
export const createStreamTokenRoute = ({ db, config }: ApiDeps) =>
  publicRoute("createStreamToken", async ({ auth, params }) => {
    const inbox = await requireInbox(db, auth.project.id, params.id);
    const token = generateStreamToken();
    const expiresAt = new Date(Date.now() + config.stream.tokenTtlSeconds * 1000);
    await insertStreamToken(db, { tokenHash: sha256(token), projectId: auth.project.id, inboxId: inbox.id, apiKeyId: auth.key.id, expiresAt });
    return {
      status: 201,
      body: {
        token,
        expires_at: expiresAt.toISOString(),
        stream_url: `${config.http.publicUrl}/stream/v1/inboxes/${inbox.id}/events?token=${token}`,
      },
    };
  });
