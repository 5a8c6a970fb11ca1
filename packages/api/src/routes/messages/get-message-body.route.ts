import { MailstopError } from "@mailstop/core";
import { UNTRUSTED_CONTENT_CSP } from "@mailstop/http";
import type { Response } from "express";
import { type ApiDeps, publicRoute } from "../../deps";
import { requireMessage } from "../../messages/message-reference";
import { availableFormats, partOf, requireBlobs } from "../../messages/message.view";

const CONTENT_TYPES = {
  text: "text/plain; charset=utf-8",
  html: "text/html; charset=utf-8",
  raw: "message/rfc822",
  headers: "text/plain; charset=utf-8",
} as const;

/**
 * How each part is offered. Plain text (`text`, `headers`) is shown where it is asked for (the
 * viewer asks for text); the sender's HTML and the raw source are saved, never rendered on the
 * API's origin, with a name made of the message id.
 */
const DISPOSITIONS = {
  text: () => "inline",
  headers: () => "inline",
  html: (id: string) => `attachment; filename="${id}.html"`,
  raw: (id: string) => `attachment; filename="${id}.eml"`,
} as const;

function setPartHeaders(res: Response, id: string, format: keyof typeof CONTENT_TYPES): void {
  res.status(200).type(CONTENT_TYPES[format]);
  res.setHeader("Content-Disposition", DISPOSITIONS[format](id));
  res.setHeader("Content-Security-Policy", UNTRUSTED_CONTENT_CSP);
}

/** GET /v1/messages/{id}/body: the whole part, from the row or streamed from the object store, never rendered on the API's origin. */
export const getMessageBodyRoute = ({ db, blobs }: ApiDeps) =>
  publicRoute("getMessageBody", async ({ auth, params, query, res }) => {
    const record = await requireMessage(db, auth.project.id, params.id);
    const part = partOf(record, query.format);
    if (part === null) {
      throw new MailstopError("unsupported_format", `This message has no ${query.format} part.`, { details: { available: availableFormats(record) } });
    }
    if (part.text !== undefined) {
      setPartHeaders(res, record.id, query.format);
      res.send(Buffer.from(part.text, "utf8"));
      return undefined;
    }
    const stream = await requireBlobs(blobs).get(part.key);
    if (stream === null) throw new MailstopError("storage_unavailable", "A stored part of this message is missing.");
    setPartHeaders(res, record.id, query.format);
    res.setHeader("Content-Length", String(part.size));
    await new Promise<void>((resolve, reject) => {
      stream.once("error", reject);
      res.once("finish", resolve);
      res.once("close", resolve);
      stream.pipe(res);
    });
    return undefined;
  });
