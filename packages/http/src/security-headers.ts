import type { NextFunction, Request, Response } from "express";

/**
 * The Content-Security-Policy of every response that sets none of its own: JSON, errors, event
 * streams. Opened in a browser, such a response may load nothing, run nothing and be framed by
 * no page. Pages (the docs, the web viewer) and downloads replace it with their own.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The policy of a response whose bytes come from a message (a body part, an attachment): if a
 * browser ever renders it, it renders in a sandbox (a unique origin, no scripts, no forms) that
 * may load nothing.
 */
export const UNTRUSTED_CONTENT_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/**
 * `X-Content-Type-Options: nosniff` and the default CSP on every response, set before any route
 * runs: a browser never guesses a type other than the declared one, and nothing the API answers
 * can run script on its origin, where the web viewer keeps its key.
 */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Content-Security-Policy", API_CSP);
  next();
}
