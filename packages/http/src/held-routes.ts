import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorRequestHandler, Request, RequestHandler, Response } from "express";
import { type MatchFunction, match } from "path-to-regexp";
import { invalidPathEncoding } from "./error-middleware";

/**
 * One operation's whole answer to a request: authentication, rate limit, validation, the
 * handler and its reply (mountRoutes builds it). Rejects with what the error envelope reports.
 */
export type OperationHandler = (req: Request, res: Response) => Promise<void>;

interface HeldRoute {
  method: string;
  matches: MatchFunction<Partial<Record<string, string>>>;
  handle: OperationHandler;
}

function ignore(): void {}

async function rejectPathEncoding(): Promise<void> {
  throw invalidPathEncoding();
}

/**
 * The operations whose requests hold their connection (a blocking wait, an event stream),
 * served before express's router sees them. A waiter holds 10,000 waits and 10,000 streams at
 * a time, and for as long as a request is pending express 5 keeps what its router made for it:
 * the `next` closures of the app's and the route's layer walks, the restore closures and the
 * promise reactions of each layer (bench/src/tools/held-request-cost.ts: 8.8 KB of heap a held
 * request behind a chain like mailstop's, 5.3 KB with the same middlewares called in order
 * without the router, 4.9 KB on node:http alone).
 *
 * Nothing else differs: a held request gets what express's `app.handle` gives every request
 * (the prototypes, already theirs since createHttpServer; `req.res`, `res.locals`), the path's
 * parameters as the router decodes them, then the app's own middlewares (request id, security
 * headers, access log, JSON body), the operation's handler from mountRoutes and, for whatever it
 * throws, the app's error middleware: one implementation of each (a parameter that is not valid
 * percent-encoding is answered as the router's routes answer it: 400 `invalid_request`).
 */
export class HeldRoutes {
  private readonly routes: HeldRoute[] = [];

  constructor(
    private readonly before: readonly RequestHandler[],
    private readonly fail: ErrorRequestHandler,
  ) {}

  /** Serves `method` requests to `expressPath` (an express route template, `/inboxes/:id`) with `handle`. */
  add(method: string, expressPath: string, handle: OperationHandler): void {
    // Matched as the router matches: case-insensitive, a trailing slash allowed, parameters decoded.
    this.routes.push({ method: method.toUpperCase(), matches: match(expressPath, { sensitive: false, trailing: true, decode: decodeURIComponent }), handle });
  }

  /** Serves `req` when it is a held operation's and returns true; false leaves it to express. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    for (const route of this.routes) {
      if (route.method !== req.method) continue;
      const url = req.url ?? "/";
      const queryAt = url.indexOf("?");
      let found: ReturnType<HeldRoute["matches"]>;
      try {
        found = route.matches(queryAt === -1 ? url : url.slice(0, queryAt));
      } catch {
        this.run(req as Request, res as Response, {}, rejectPathEncoding);
        return true;
      }
      if (found === false) continue;
      this.run(req as Request, res as Response, found.params as Record<string, string>, route.handle);
      return true;
    }
    return false;
  }

  private run(req: Request, res: Response, params: Record<string, string>, handle: OperationHandler): void {
    req.res = res;
    res.locals = Object.create(null) as Response["locals"];
    req.params = params;
    const fail = (error: unknown): void => {
      try {
        void this.fail(error, req, res, ignore);
      } catch {
        // The error envelope itself failed (a response already torn): end the connection
        // rather than the process, as express's final handler would.
        res.destroy();
      }
    };
    let step = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        fail(error);
        return;
      }
      const middleware = this.before[step++];
      if (middleware === undefined) {
        handle(req, res).catch(fail);
        return;
      }
      try {
        // Express 5 passes a middleware's rejected promise on as its error; so does this.
        const result: unknown = middleware(req, res, next);
        if (result instanceof Promise) result.catch(fail);
      } catch (thrown) {
        fail(thrown);
      }
    };
    next();
  }
}
