export type { AuthContext } from "./auth-context";
export { authenticate, bearerToken } from "./authenticate";
export { defineRoute, defineOpenRoute, EncodedJson, type RouteDefinition, type RouteContext, type OpenRouteContext, type BodyOf, type QueryOf, type ReplyOf } from "./route";
export { mountRoutes, type RouteSet, type MountOptions } from "./mount-routes";
export type { RateLimitSettings } from "./rate-limit";
export { createHttpApp, type HttpContribution, JSON_BODY_LIMIT } from "./create-http-app";
export { createHttpServer } from "./create-http-server";
export { requestIdOf } from "./request-id";
export { healthRoute } from "./health.route";
