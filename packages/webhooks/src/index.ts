export { deliver, DELIVERY_TIMEOUT_MS, RESPONSE_BODY_KEPT, type AttemptOutcome } from "./deliver";
export {
  LINK_CHECK_CONCURRENCY,
  LINK_CHECK_MAX_LINKS,
  LINK_CHECK_MAX_REDIRECTS,
  LINK_CHECK_TIMEOUT_MS,
  checkLink,
  checkLinks,
  linkGuard,
  linksToCheck,
  type LinkCheckOutcome,
  type LinkError,
  type LinkOutcome,
} from "./link-check";
export { BlockedTarget, LOCAL_ALLOWED_NETWORKS, TargetGuard, allowedNetworks, isAllowedAddress, type Network, type ResolvedTarget } from "./network-guard";
export { pinnedRequest, type PinnedRequestOptions } from "./pinned-request";
export { DEFAULT_RETRY_SCHEDULE_S, nextAttemptDelayMs } from "./retry-schedule";
export { SecretBox } from "./secret-box";
export { newWebhookSecret, signedHeaders } from "./signing";
