export { deliver, DELIVERY_TIMEOUT_MS, RESPONSE_BODY_KEPT, type AttemptOutcome } from "./deliver";
export { BlockedTarget, LOCAL_ALLOWED_NETWORKS, TargetGuard, allowedNetworks, isAllowedAddress, type Network, type ResolvedTarget } from "./network-guard";
export { DEFAULT_RETRY_SCHEDULE_S, nextAttemptDelayMs } from "./retry-schedule";
export { SecretBox } from "./secret-box";
export { newWebhookSecret, signedHeaders } from "./signing";
