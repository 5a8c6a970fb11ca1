import { MailstopError } from "@mailstop/core";
import { type ApiDeps, publicRoute } from "../../deps";
import { safeFilename } from "../../messages/attachment-filename";
import { requireMessage } from "../../messages/message-reference";
import { requireBlobs } from "../../messages/message.view";

/** How long a presigned attachment URL works. */
export const ATTACHMENT_URL_TTL_SECONDS = 300;

/** The download name of an attachment the message did not name: the download is still an attachment, never rendered. */
export const UNNAMED_ATTACHMENT = "attachment";

/**
 * GET /v1/messages/{id}/attachments/{attachmentId}: 302 to a short-lived presigned URL (or,
 * with `redirect=false`, that URL as JSON, for the web viewer); no bytes pass through the API.
 */
export const getAttachmentRoute = ({ db, blobs }: ApiDeps) =>
  publicRoute("getAttachment", async ({ auth, params, query, res }) => {
    const record = await requireMessage(db, auth.project.id, params.id);
    const attachment = record.attachments.find((candidate) => candidate.id === params.attachmentId);
    if (!attachment) throw new MailstopError("attachment_not_found", `Message ${params.id} has no attachment ${params.attachmentId}.`);
    // The name the message view shows (the stored one is as the sender wrote it, see
    // safeFilename); a name is always given so the download always says `attachment`.
    const filename = safeFilename(attachment.filename) ?? UNNAMED_ATTACHMENT;
    const expiresAt = new Date(Date.now() + ATTACHMENT_URL_TTL_SECONDS * 1000);
    const url = await requireBlobs(blobs).presignGet(attachment.blobKey, ATTACHMENT_URL_TTL_SECONDS, { contentType: attachment.contentType, filename });
    if (query.redirect === false) return { status: 200, body: { url, expires_at: expiresAt.toISOString() } };
    res.redirect(302, url);
    return undefined;
  });
