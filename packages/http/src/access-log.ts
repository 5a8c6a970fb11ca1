import type { NextFunction, Request, Response } from "express";
import type { Logger } from "@mailstop/logging";
import { requestIdOf } from "./request-id";

/** Told of every response once it ends: its route label, method, status and duration (the metrics). */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/**
 * Names a request's route by its OpenAPI operationId (set by mountRoutes), else by the express
 * route template it matched (`/ready`, `/blobs/*`), never by its path: a path holds ids, and
 * each would make a series of its own. Unmatched requests (404s) share one label.
 */
export function routeOf(res: Response): string {
  const operationId = res.locals.operationId as string | undefined;
  if (operationId !== undefined) return operationId;
  const template = (res.req.route as { path?: unknown } | undefined)?.path;
  return typeof template === "string" ? template : "unmatched";
}

/**
 * One line per request: method, path (never the query, which may hold a stream token),
 * status, duration and request id, at error for a 5xx (the error middleware logs the cause
 * beside it, under the same request id). Headers and bodies are never logged; a response
 * the client left before it was complete says so (`aborted`).
 *
 * Written here rather than with pino-http, which gave every request two child loggers (a
 * dozen bound functions each) and three listeners kept for the request's life: a waiter holds
 * 10,000 waits and streams at a time, and only ever needed the line at the end. Per request
 * this keeps a start time in `res.locals` and one shared listener.
 */
export function accessLog(logger: Logger, observe: RequestObserver | null = null) {
  function logRequest(this: Response): void {
    const req = this.req;
    const status = this.statusCode;
    const durationMs = Date.now() - (this.locals.startedAt as number);
    observe?.(routeOf(this), req.method, status, durationMs / 1000);
    const line = {
      request_id: requestIdOf(this),
      req: { method: req.method, path: req.path },
      res: { status },
      duration_ms: durationMs,
      ...(this.writableFinished ? {} : { aborted: true }),
    };
    if (status >= 500) logger.error(line, "request");
    else logger.info(line, "request");
  }
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.locals.startedAt = Date.now();
    // `close` comes once on every response: after `finish`, or alone when the client goes first.
    res.on("close", logRequest);
    next();
  };
}
