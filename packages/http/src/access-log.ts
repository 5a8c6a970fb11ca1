import type { Request, Response } from "express";
import { pinoHttp } from "pino-http";
import type { Logger } from "@mailstop/logging";
import { requestIdOf } from "./request-id";

/**
 * One line per request: method, path (never the query, which may hold a stream token),
 * status, duration and request id. Headers and bodies are never logged.
 */
export function accessLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => requestIdOf(res as Response),
    customAttributeKeys: { reqId: "request_id", responseTime: "duration_ms" },
    serializers: {
      req: (req: { method: string; raw: Request }) => ({ method: req.method, path: req.raw.path }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : "info"),
    customSuccessMessage: () => "request",
    customErrorMessage: () => "request",
    quietReqLogger: true,
  });
}
