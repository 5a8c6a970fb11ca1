import type { NextFunction, Request, Response } from "express";
import { newId } from "@mailstop/core";

/** Gives every request a `req_…` id, echoed as `x-request-id` on every response. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = newId("request");
  res.locals.requestId = id;
  res.setHeader("x-request-id", id);
  next();
}

export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
}
