import type { BlobStore } from "@mailstop/blob-store";
import { INLINE_PART_MAX_BYTES, MailstopError } from "@mailstop/core";
import type { MessageRecord } from "@mailstop/db";
import type { PublicComponents } from "@mailstop/openapi";
import { safeFilename } from "./attachment-filename";
import { checkStatuses } from "./message-checks.view";

export type MessageView = PublicComponents["schemas"]["MessageView"];
type BodySlice = PublicComponents["schemas"]["BodySlice"];
export type BodyFormat = "text" | "html" | "raw" | "headers";

/** A part of a message: in the object store under `key`, or in the row as `text`. */
export type StoredPart = { size: number } & ({ key: string; text?: undefined } | { key?: undefined; text: string });

/** The fields that hold parts kept in the row, without an object key. */
const IN_ROW = { text: "textBody", html: "htmlBody", headers: "headerBlock" } as const;

/** Where each part of a message lives and how big it is; null when the message has none. */
export function partOf(record: MessageRecord, format: BodyFormat): StoredPart | null {
  if (format === "raw") return { key: record.rawKey, size: record.size };
  const part = record.parts[format];
  if (part === undefined) return null;
  // The text part is always whole in the row (`textBody`), also in rows stored with a text object.
  if (part.key !== undefined && format !== "text") return { key: part.key, size: part.size };
  return { text: record[IN_ROW[format]] ?? "", size: part.size };
}

/** The formats a message can serve (for `unsupported_format`'s `details.available`). */
export function availableFormats(record: MessageRecord): BodyFormat[] {
  return (["text", "html", "raw", "headers"] as const).filter((format) => partOf(record, format) !== null);
}

export function requireBlobs(blobs: BlobStore | null): BlobStore {
  if (blobs === null) throw new MailstopError("storage_unavailable", "This deployment has no object store configured.");
  return blobs;
}

async function readText(blobs: BlobStore | null, part: StoredPart): Promise<string> {
  if (part.text !== undefined) return part.text;
  const stream = await requireBlobs(blobs).get(part.key);
  if (stream === null) throw new MailstopError("storage_unavailable", "A stored part of this message is missing.");
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The first `count` characters (code points, so a surrogate pair is never split). */
function firstCharacters(text: string, count: number): string {
  if (text.length <= count) return text;
  return Array.from(text.slice(0, count * 2)).slice(0, count).join("");
}

export interface ViewOptions {
  /** Extra representations; `text` is always included. */
  formats: readonly BodyFormat[];
  /** 0 in lists: every preview is empty there, sizes and urls stay. */
  previewChars: number;
  origin: string;
  blobs: BlobStore | null;
}

/** The message view (schema `MessageView`; docs/messages-and-matching.md "The message view"). */
export async function toMessageView(record: MessageRecord, options: ViewOptions): Promise<MessageView> {
  const url = (format: BodyFormat) => `${options.origin}/v1/messages/${record.id}/body?format=${format}`;

  const slice = async (format: BodyFormat): Promise<BodySlice | undefined> => {
    const part = partOf(record, format);
    if (part === null) return format === "text" ? { preview: "", size: 0, truncated: false, url: null } : undefined;
    if (part.size > INLINE_PART_MAX_BYTES || options.previewChars === 0) {
      return { preview: "", size: part.size, truncated: part.size > 0, url: url(format) };
    }
    const whole = await readText(options.blobs, part);
    const preview = firstCharacters(whole, options.previewChars);
    return { preview, size: part.size, truncated: preview.length < whole.length, url: url(format) };
  };

  const extra = [...new Set(options.formats)].filter((format) => format !== "text");
  const slices = await Promise.all(extra.map(async (format) => [format, await slice(format)] as const));
  const body: MessageView["body"] = { text: (await slice("text"))! };
  for (const [format, value] of slices) if (value !== undefined) body[format] = value;

  return {
    id: record.id,
    inbox_id: record.inboxId,
    inbox: record.inboxAddress,
    message_id: record.messageId,
    received_at: record.receivedAt.toISOString(),
    subject: record.subject,
    from: record.from,
    to: record.to,
    cc: record.cc,
    reply_to: record.replyTo,
    correlation_id: record.correlationId,
    labels: record.labels,
    size: record.size,
    codes: record.codes,
    links: record.links,
    attachments: record.attachments.map((attachment) => ({
      id: attachment.id,
      filename: safeFilename(attachment.filename),
      content_type: attachment.contentType,
      size: attachment.size,
      url: `${options.origin}/v1/messages/${record.id}/attachments/${attachment.id}`,
    })),
    body,
    parse_warnings: record.parseWarnings,
    checks: checkStatuses(record),
  };
}
