export { Metrics, replyClassOf, type JobOutcome, type ReplyClass, type SmtpListener, type WebhookOutcome } from "./metrics";
