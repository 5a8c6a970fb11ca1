import { pipeline } from "node:stream/promises";
import { type DirectoryBlobStore, SIGNED_DOWNLOAD_PATH, attachmentDisposition } from "@mailstop/blob-store";
import { MailstopError } from "@mailstop/core";
import { UNTRUSTED_CONTENT_CSP } from "@mailstop/http";
import type { Express, NextFunction, Request, Response } from "express";

const REASONS = {
  expired: "This download link has expired; request a new one.",
  invalid: "This download link is not valid: its signature does not match.",
} as const;

/**
 * Serves the download URLs a DirectoryBlobStore signs (the monolith without S3), standing in
 * for the object store's presigned URLs. Not an API operation: the URL itself is the
 * credential, as with S3. A bad or expired signature is `403 forbidden` in the error envelope.
 */
export function mountSignedDownloads(app: Express, store: DirectoryBlobStore): void {
  app.get(`${SIGNED_DOWNLOAD_PATH}*key`, (req: Request, res: Response, next: NextFunction) => {
    const segments = (req.params as { key?: string | string[] }).key;
    const key = Array.isArray(segments) ? segments.join("/") : String(segments ?? "");
    const grant = store.verifyDownload(key, req.query as Record<string, unknown>);
    if (grant === "expired" || grant === "invalid") return next(new MailstopError("forbidden", REASONS[grant]));
    store
      .get(grant.key)
      .then(async (body) => {
        if (body === null) throw new MailstopError("attachment_not_found", "The object behind this download no longer exists.");
        res.setHeader("content-type", grant.contentType ?? "application/octet-stream");
        // Always a download: the API signs every attachment with a name (see getAttachmentRoute).
        res.setHeader("content-disposition", grant.filename === null ? "attachment" : attachmentDisposition(grant.filename));
        // The declared type is the sender's: never let a browser guess another from the bytes,
        // and should one render it anyway, in a sandbox that runs nothing.
        res.setHeader("x-content-type-options", "nosniff");
        res.setHeader("content-security-policy", UNTRUSTED_CONTENT_CSP);
        res.setHeader("cache-control", "private, no-store");
        await pipeline(body, res);
      })
      .catch((error) => (res.headersSent ? res.destroy(error as Error) : next(error)));
  });
}
