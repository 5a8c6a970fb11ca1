import { newId } from "@mailstop/core";
import type { StoreMessageInput } from "./message.repository";

/**
 * A parsed message to store, for the repository's tests: a text body equal to its subject,
 * one copy per inbox, and optionally one small attachment.
 */
export function storeInput(
  projectId: string,
  rawKey: string,
  inboxIds: string[],
  options: { subject?: string; receivedAt?: Date; withAttachment?: boolean } = {},
): StoreMessageInput {
  const subject = options.subject ?? rawKey;
  const receivedAt = options.receivedAt ?? new Date();
  const attachments = options.withAttachment ? [{ position: 0, filename: "a.txt", contentType: "text/plain", contentId: null, size: 1, blobKey: `k/${subject}` }] : [];
  return {
    projectId,
    kind: "received",
    rawKey,
    size: 10,
    envelopeFrom: null,
    receivedAt,
    metric: "message.received",
    periodStart: "2026-11-01",
    content: {
      messageId: null,
      correlationId: null,
      subject,
      from: null,
      to: [],
      cc: [],
      replyTo: [],
      headers: [],
      textBody: subject,
      htmlBody: null,
      headerBlock: null,
      parts: {},
      codes: [],
      links: [],
      parseError: null,
      parseWarnings: [],
      attachments,
    },
    copies: inboxIds.map((inboxId) => ({
      inboxId,
      newMessageId: newId("message"),
      newAttachmentIds: attachments.map(() => newId("attachment")),
      envelopeTo: "x@mailstop.test",
      visibleAt: receivedAt,
      complaint: false,
      labels: {},
    })),
    completesTransaction: null,
  };
}
