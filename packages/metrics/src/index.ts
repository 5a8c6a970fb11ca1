export { type Exposition, type JobOutcome, type Metrics, PrometheusMetrics, type ReplyClass, type SmtpListener, type WebhookOutcome, replyClassOf } from "./metrics";
export { NoMetrics, createMetrics } from "./no-metrics";
