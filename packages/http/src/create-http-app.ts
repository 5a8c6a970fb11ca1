import express, { type Express } from "express";
import type { Logger } from "@mailstop/logging";
import { type RequestObserver, accessLog } from "./access-log";
import { adminDisabled, errorMiddleware, notFoundMiddleware } from "./error-middleware";
import { HeldRoutes } from "./held-routes";
import { jsonBody } from "./json-body";
import { type MountOptions, type RouteSet, mountRoutes } from "./mount-routes";
import { requestIdMiddleware } from "./request-id";
import { securityHeaders } from "./security-headers";

/** What one service module adds to the shared HTTP listener. */
export interface HttpContribution extends RouteSet {
  /** Non-operation handlers, such as the static assets of /docs. */
  setup?: (app: Express) => void;
}

export const JSON_BODY_LIMIT = "1mb";

/** An HTTP-serving target's routes: the express app, and the held ones served before it (see HeldRoutes). */
export interface HttpApp {
  app: Express;
  held: HeldRoutes;
}

/**
 * The express app of an HTTP-serving target: request id, security headers, access log, JSON bodies, the
 * contributed routes, then the 404 and the error envelope for everything else. The held routes
 * (waits, streams) go through the same middlewares and error envelope without the router.
 */
export function createHttpApp(options: MountOptions & { logger: Logger; contributions: readonly HttpContribution[]; observeRequest?: RequestObserver }): HttpApp {
  const app = express();
  app.disable("x-powered-by");
  // deepObject query parameters (`header_contains[X-Foo]=bar`) need the extended parser.
  app.set("query parser", "extended");
  const before = [requestIdMiddleware, securityHeaders, accessLog(options.logger, options.observeRequest ?? null), jsonBody(JSON_BODY_LIMIT)];
  const onError = errorMiddleware(options.logger);
  const held = new HeldRoutes(before, onError);
  app.use(before);
  for (const contribution of options.contributions) {
    contribution.setup?.(app);
    mountRoutes(app, contribution, options, held);
  }
  if (options.adminToken === null) app.use("/admin/v1", adminDisabled);
  app.use(notFoundMiddleware);
  app.use(onError);
  return { app, held };
}
