import type { NextFunction, Request, Response } from "express";
import express from "express";

/**
 * JSON body parsing whose failure (not JSON, over the size limit) is held back until the route
 * has authenticated the caller: `unauthenticated` comes before anything else (docs/api.md "The
 * order of the checks"), so a malformed body without a credential is 401, not 400 or 413. Unknown routes still answer 404.
 */
export function jsonBody(limit: string) {
  const parse = express.json({ limit });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) res.locals.bodyError = error;
      next();
    });
  };
}

/** Throws the held-back body failure of {@link jsonBody}, if any; called once the caller is authenticated. */
export function rethrowBodyError(res: Response): void {
  if (res.locals.bodyError !== undefined) throw res.locals.bodyError;
}
