export { Mailstop } from "./client.js";
export { DEFAULT_API_URL, type MailstopOptions } from "./config.js";
export { MailstopError, WaitTimeoutError } from "./errors.js";
export { captureTagOf } from "./capture-tag.js";
export { MISSING_KEY_REASON } from "./key-guard.js";
export type { WaitForOptions } from "./resources/messages.js";
export { verifyWebhook, WebhookVerificationError } from "./verify-webhook.js";
export type { StreamOptions } from "./resources/stream.js";
export type {
  ErrorCode,
  ErrorEnvelope,
  Inbox,
  MessageMatch,
  MessageView,
  Page,
  Schemas,
  StreamMessage,
  WaitMatched,
  WaitRequest,
  WaitResult,
  WaitTimeout,
} from "./types.js";
