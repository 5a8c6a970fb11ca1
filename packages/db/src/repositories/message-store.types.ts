import type { Labels, MessageAddress, MessageChecks, MessageLink, MessageParts } from "../tables";

// The store's input and output, apart from the repository so that its column lists
// (message-store.columns.ts) and the repository both depend on them, not on each other.

/** What the parser learned from one raw source; shared by every copy of it. */
export interface ParsedContent {
  messageId: string | null;
  correlationId: string | null;
  subject: string;
  from: MessageAddress | null;
  to: MessageAddress[];
  cc: MessageAddress[];
  replyTo: MessageAddress[];
  headers: [string, string][];
  textBody: string | null;
  /** The html part and header block kept in the row (null when absent or in the object store, see `parts`). */
  htmlBody: string | null;
  headerBlock: string | null;
  parts: MessageParts;
  codes: string[];
  links: MessageLink[];
  parseError: string | null;
  /** What could not be read of the message (caps hit, an unparseable source); empty for a clean parse. */
  parseWarnings: string[];
  /** What the parser checked of the source (authentication, HTML support); absent or null when unchecked. */
  checks?: MessageChecks | null | undefined;
  attachments: { position: number; filename: string | null; contentType: string; contentId: string | null; size: number; blobKey: string }[];
}

/** One stored copy per recipient inbox. */
export interface MessageCopy {
  inboxId: string;
  /** The id this copy gets if it is new; a retried job finds the copy's existing id instead. */
  newMessageId: string;
  newAttachmentIds: string[];
  envelopeTo: string;
  visibleAt: Date;
  complaint: boolean;
  labels: Labels;
}

export interface StoredCopy {
  inboxId: string;
  messageId: string;
  /** The event stream cursor; null while `sim.delay` hides the copy (see {@link revealMessage}). */
  streamSeq: string | null;
  visibleAt: Date;
  /** False when an earlier attempt of the same job had already stored it. */
  inserted: boolean;
  /** True when storing it raised webhook events (outbox rows): the relay has deliveries to queue. */
  raisedWebhookEvents: boolean;
}

/** One parsed raw source and the copies to store of it. */
export interface StoreMessageInput {
  projectId: string;
  kind: "received" | "captured";
  rawKey: string;
  size: number;
  envelopeFrom: string | null;
  receivedAt: Date;
  metric: string;
  periodStart: string;
  content: ParsedContent;
  copies: MessageCopy[];
  /**
   * The accept-ledger row this store completes (the transaction's last delivery), marked done
   * in the same database transaction as the rows; null when more deliveries follow.
   */
  completesTransaction: string | null;
}
