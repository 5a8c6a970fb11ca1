import type { NextFunction, Request, Response } from "express";
import { MailstopError, asMailstopError, databaseUnavailable, toEnvelope, unknownRoute } from "@mailstop/core";
import { isDatabaseUnreachable } from "@mailstop/db";
import type { Logger } from "@mailstop/logging";
import { requestIdOf } from "./request-id";

/** Body-parser failures, recognised by their documented `type`, never by message text. */
function fromBodyParser(error: unknown): MailstopError | null {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === "entity.too.large") return new MailstopError("payload_too_large", "The request body is over this route's size limit.");
  if (type === "entity.parse.failed") {
    return new MailstopError("invalid_request", "The request body is not valid JSON.", { details: { errors: [{ in: "body", path: "/", message: "is not valid JSON" }] } });
  }
  if (type === "encoding.unsupported" || type === "charset.unsupported") {
    return new MailstopError("invalid_request", "The request body's encoding is not supported; send UTF-8 JSON.");
  }
  return null;
}

/** A path whose parameter is not valid percent-encoding (`%E0%A4%A`): bad input, not a failure of ours. */
export function invalidPathEncoding(): MailstopError {
  return new MailstopError("invalid_request", "The request path is not valid percent-encoding.", {
    details: { errors: [{ in: "path", path: "/", message: "is not valid percent-encoding" }] },
  });
}

/** The router's failure to decode a path parameter: a URIError it marks 400. */
function fromRouter(error: unknown): MailstopError | null {
  return error instanceof URIError && (error as { status?: unknown }).status === 400 ? invalidPathEncoding() : null;
}

/** The database could not be reached or dropped the connection (see databaseUnavailable). */
function fromDatabase(error: unknown): MailstopError | null {
  return isDatabaseUnreachable(error) ? databaseUnavailable(error) : null;
}

/** Writes the error envelope (docs/api.md "Errors"); the only place an error becomes a response. */
export function errorMiddleware(logger: Logger) {
  return (thrown: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const error = fromBodyParser(thrown) ?? fromRouter(thrown) ?? fromDatabase(thrown) ?? asMailstopError(thrown);
    if (error.planned) {
      logger.info({ code: error.code, reason: error.reason, request_id: requestIdOf(res), method: req.method, path: req.path }, "request ended by the server");
    } else if (error.code === "internal" || error.status >= 500) {
      logger.error({ err: error.cause ?? error, request_id: requestIdOf(res), method: req.method, path: req.path }, "request failed");
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
    res.status(error.status).json(toEnvelope(error));
  };
}

/** An unknown route or method: HTTP 404 with code `invalid_request` naming both. */
export function notFoundMiddleware(req: Request, _res: Response, next: NextFunction): void {
  next(unknownRoute(req.method, req.path));
}

/**
 * Any /admin/v1 request while MAILSTOP_ADMIN_TOKEN is unset: the unknown-route answer, but
 * saying why, since "No route" read as a typo in the path.
 */
export function adminDisabled(req: Request, _res: Response, next: NextFunction): void {
  next(unknownRoute(req.method, req.originalUrl.split("?")[0]!, "the admin API is disabled; set MAILSTOP_ADMIN_TOKEN to enable it"));
}
