import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import { type MailstopError, asMailstopError, notReady as notReadyError, toEnvelope, unknownRoute } from "@mailstop/core";
import { type RuntimeContext, defineModule } from "../module";
import { closeListener, listen } from "./listener";

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": bytes.length });
  res.end(bytes);
}

function sendError(res: ServerResponse, error: MailstopError): void {
  sendJson(res, error.status, toEnvelope(error));
}

function handler(context: RuntimeContext) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? "/").split("?")[0]!;
    void (async () => {
      if (req.method === "GET" && path === "/health") return sendJson(res, 200, { status: "ok", brand: context.config.brand, region: context.config.region, time: new Date().toISOString() });
      // With metrics off there is no exposition: /metrics is an unknown route, as on the HTTP listener.
      const exposition = req.method === "GET" && path === "/metrics" ? await context.metrics.expose() : null;
      if (exposition !== null) {
        res.writeHead(200, { "content-type": exposition.contentType });
        return void res.end(exposition.body);
      }
      if (req.method === "GET" && path === "/ready") {
        // As the HTTP listener answers it: 200, or the 503 envelope naming what is not ready.
        const waiting = await context.notReady();
        return waiting.length === 0 ? sendJson(res, 200, { status: "ready" }) : sendError(res, notReadyError(waiting));
      }
      sendError(res, unknownRoute(req.method ?? "GET", path));
    })().catch((error: unknown) => {
      context.logger.error({ err: error, path }, "operations request failed");
      if (!res.headersSent) sendError(res, asMailstopError(error));
      else res.end();
    });
  };
}

/**
 * The operations listener of the targets without an HTTP listener (smtp-edge, parser), on
 * MAILSTOP_OPS_PORT: GET /health (the process serves), GET /ready (its modules' engines
 * answer; 503 while starting and from the first moment of a shutdown) and GET /metrics. It
 * needs nothing, so it starts first and stops last: a probe sees `starting` and `stopping`
 * rather than a refused connection. Plain node:http: three routes need no express.
 */
export const opsServerModule = defineModule({
  name: "ops-server",
  needs: [],
  provides: ["opsAddress"],
  create(context) {
    let server: Server | undefined;
    return {
      async start() {
        server = createServer(handler(context));
        const address = await listen(server, context.config.opsPort, context.config.host);
        context.logger.info(address, "operations listener (/health, /ready, /metrics) listening");
        return { opsAddress: address };
      },
      stop: () => closeListener(server, "all"),
      ready: async () => server?.listening === true,
    };
  },
});
