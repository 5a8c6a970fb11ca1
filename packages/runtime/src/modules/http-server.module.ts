import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpContribution, createHttpApp, createHttpServer, healthRoute } from "@mailstop/http";
import { notReady } from "@mailstop/core";
import { publicDocument } from "@mailstop/openapi";
import { type RuntimeContext, type ServiceModule, requireDb } from "../module";

/**
 * GET /ready, for orchestrators (Kubernetes readiness probes, load balancers): 200 once every
 * module of this target is started and its engines answer, else 503 naming the modules that
 * are not. Not an API operation (like /health it needs no key), so outside the OpenAPI document.
 */
function mountReadiness(app: Parameters<NonNullable<HttpContribution["setup"]>>[0], context: RuntimeContext): void {
  app.get("/ready", (_req, res, next) => {
    (context.notReady?.() ?? Promise.resolve(["starting"]))
      .then((waiting) => {
        if (waiting.length === 0) return void res.json({ status: "ready" });
        next(notReady(waiting));
      })
      .catch(next);
  });
}

/**
 * The one HTTP listener of an HTTP-serving target. It starts after the modules that add
 * routes to it, and serves /health the same way in every target.
 */
export function httpServerModule(context: RuntimeContext): ServiceModule {
  let server: Server | undefined;
  return {
    name: "http-server",
    async start() {
      const { config } = context;
      const health: HttpContribution = { document: publicDocument(), routes: [healthRoute(config)], setup: (app) => mountReadiness(app, context) };
      const app = createHttpApp({
        db: requireDb(context),
        region: config.region,
        adminToken: config.adminToken,
        logger: context.logger,
        contributions: [health, ...context.http],
      });
      const listener = createHttpServer(app).listen(config.http.port, config.host);
      server = listener;
      await once(listener, "listening");
      const address = listener.address() as AddressInfo;
      context.httpAddress = { host: address.address, port: address.port };
      context.logger.info({ host: address.address, port: address.port, public_url: config.http.publicUrl }, "http listening");
    },
    async stop() {
      if (!server?.listening) return;
      const closed = once(server, "close");
      server.close();
      server.closeIdleConnections();
      await closed;
    },
    ready: async () => server?.listening === true,
  };
}
