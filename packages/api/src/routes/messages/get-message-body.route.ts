import { MailstopError } from "@mailstop/core";
import { type ApiDeps, publicRoute } from "../../deps";
import { requireMessage } from "../../messages/message-reference";
import { availableFormats, partOf, requireBlobs } from "../../messages/message.view";

const CONTENT_TYPES = {
  text: "text/plain; charset=utf-8",
  html: "text/html; charset=utf-8",
  raw: "message/rfc822",
  headers: "text/plain; charset=utf-8",
} as const;

/** GET /v1/messages/{id}/body: the whole part, from the row or streamed from the object store. */
export const getMessageBodyRoute = ({ db, blobs }: ApiDeps) =>
  publicRoute("getMessageBody", async ({ auth, params, query, res }) => {
    const record = await requireMessage(db, auth.project.id, params.id);
    const part = partOf(record, query.format);
    if (part === null) {
      throw new MailstopError("unsupported_format", `This message has no ${query.format} part.`, { details: { available: availableFormats(record) } });
    }
    if (part.text !== undefined) {
      res.status(200).type(CONTENT_TYPES[query.format]).send(Buffer.from(part.text, "utf8"));
      return undefined;
    }
    const stream = await requireBlobs(blobs).get(part.key);
    if (stream === null) throw new MailstopError("storage_unavailable", "A stored part of this message is missing.");
    res.status(200).type(CONTENT_TYPES[query.format]).setHeader("Content-Length", String(part.size));
    await new Promise<void>((resolve, reject) => {
      stream.once("error", reject);
      res.once("finish", resolve);
      res.once("close", resolve);
      stream.pipe(res);
    });
    return undefined;
  });
