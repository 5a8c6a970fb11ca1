import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiKeyCache, type HttpContribution, KEY_CACHE_TTL_MS, createHttpApp, createHttpServer, healthRoute } from "@mailstop/http";
import { findApiKeyByHash } from "@mailstop/db";
import { notReady as notReadyError } from "@mailstop/core";
import { publicDocument } from "@mailstop/openapi";
import { type RuntimeContext, defineModule } from "../module";
import { closeListener, listen } from "./listener";
import { mountMcp } from "./mcp-endpoint";

/**
 * GET /ready and GET /metrics. /ready, for orchestrators (Kubernetes readiness probes, load balancers): 200 once every
 * module of this target is started and its engines answer, else 503 naming the modules that
 * are not. Not an API operation (like /health it needs no key), so outside the OpenAPI document.
 */
function mountReadiness(app: Parameters<NonNullable<HttpContribution["setup"]>>[0], modulesNotReady: RuntimeContext["notReady"], metrics: RuntimeContext["metrics"]): void {
  app.get("/ready", (_req, res, next) => {
    modulesNotReady()
      .then((waiting) => {
        if (waiting.length === 0) return void res.json({ status: "ready" });
        next(notReadyError(waiting));
      })
      .catch(next);
  });
  // Prometheus's scrape (docs/operator.md "Metrics"); like /ready, not an API operation. With
  // metrics off there is no exposition: on to the unknown route's 404.
  app.get("/metrics", (_req, res, next) => {
    metrics
      .expose()
      .then((exposition) => (exposition === null ? next() : void res.type(exposition.contentType).send(exposition.body)))
      .catch(next);
  });
}

/** How this process reaches its own listener: a wildcard bind is reached on loopback. */
function ownOrigin(address: AddressInfo): string {
  const host = address.address === "0.0.0.0" || address.address === "::" ? "127.0.0.1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/**
 * The one HTTP listener of an HTTP-serving target: /health, /ready, /mcp (with the api), and the routes of the
 * target's modules that serve HTTP, so it starts after them. /health answers the same way in
 * every target.
 */
export const httpServerModule = defineModule({
  name: "http-server",
  // The rate limits of the keyed routes count in the messaging's store, shared by every instance.
  needs: ["db", "messaging"],
  optional: ["downloadRoutes", "waiterRoutes", "apiRoutes"],
  provides: ["httpAddress"],
  create({ db, messaging, downloadRoutes, waiterRoutes, apiRoutes, config, logger, notReady, metrics }) {
    let server: Server | undefined;
    // One per process, heard by the credential channel: the monolith's api and waiter share it.
    const keys = new ApiKeyCache((keyHash, period) => findApiKeyByHash(db, keyHash, period), { maxEntries: config.keyCache.entries, ttlMs: KEY_CACHE_TTL_MS });
    let unwatchKeys: (() => Promise<void>) | undefined;
    return {
      async start() {
        // A process that cannot hear the credential channel (a Redis ACL without pub/sub) still
        // serves: its cache stays bypassed, every request reads its key, as without a cache.
        unwatchKeys = await keys.watch(messaging.bus).catch((error: unknown) => {
          logger.warn({ err: error }, "API keys are not cached: the credential channel could not be subscribed");
          return undefined;
        });
        // POST /mcp, beside the API's routes: its tool calls loop back through the REST API on
        // this listener, which serves the api; the wait too on the monolith, else on a waiter
        // (MAILSTOP_WAITER_URL, or the public origin whose edge routes it to one). See
        // docs/decisions.md "MCP server".
        const origins = () => {
          const own = ownOrigin(server!.address() as AddressInfo);
          return { api: own, wait: waiterRoutes ? own : (config.waiterUrl ?? config.http.publicUrl) };
        };
        const health: HttpContribution = {
          document: publicDocument(),
          routes: [healthRoute(config)],
          setup: (app) => {
            mountReadiness(app, notReady, metrics);
            if (apiRoutes) mountMcp(app, { keys, region: config.region, origins });
          },
        };
        const { app, held } = createHttpApp({
          db,
          keys,
          region: config.region,
          adminToken: config.adminToken,
          rateLimits: config.rateLimits.enabled ? { limits: messaging.rateLimits, defaults: config.rateLimits } : null,
          logger,
          observeRequest: (route, method, status, seconds) => metrics.observeRequest(route, method, status, seconds),
          contributions: [health, ...(downloadRoutes ?? []), ...(waiterRoutes ?? []), ...(apiRoutes ?? [])],
        });
        server = createHttpServer(app, held);
        const address = await listen(server, config.http.port, config.host);
        logger.info({ ...address, public_url: config.http.publicUrl }, "http listening");
        return { httpAddress: address };
      },
      async stop() {
        await unwatchKeys?.();
        await closeListener(server, "idle");
      },
      ready: async () => server?.listening === true,
    };
  },
});
