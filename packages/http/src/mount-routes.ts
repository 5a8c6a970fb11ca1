import type { Request, Response, Router } from "express";
import { MailstopError, secretMatchesHash, sha256 } from "@mailstop/core";
import type { Db } from "@mailstop/db";
import { type OpenApiDocument, type OperationValidator, buildValidators } from "@mailstop/openapi";
import { enforceAllowance } from "./allowance";
import type { HeldRoutes, OperationHandler } from "./held-routes";
import type { ApiKeyLookup } from "./api-key-cache";
import { authenticate, authenticateKeyOrStreamToken, bearerToken } from "./authenticate";
import { rethrowBodyError } from "./json-body";
import { type RateLimitSettings, rateLimitCheck } from "./rate-limit";
import { requestIdOf } from "./request-id";
import { EncodedJson, type RouteDefinition } from "./route";

/** A set of routes and the OpenAPI document that defines their method, path and rules. */
export interface RouteSet {
  document: OpenApiDocument;
  routes: readonly RouteDefinition[];
}

export interface MountOptions {
  db: Db;
  /** Finds API keys by digest: the process's ApiKeyCache. */
  keys: ApiKeyLookup;
  region: "us" | "eu";
  /** The operator token; admin routes are mounted only when it is set. */
  adminToken: string | null;
  /** The keyed routes' request buckets (docs/decisions.md "Rate limits"); null when the operator turned rate limits off. */
  rateLimits: RateLimitSettings | null;
}

function adminGuard(adminToken: string): (req: Request) => void {
  const digest = sha256(adminToken);
  return (req) => {
    if (!secretMatchesHash(bearerToken(req), digest)) throw new MailstopError("invalid_api_key", "This is not the admin token.");
  };
}


/**
 * Registers every route of `set`: a held one (a blocking wait, an event stream) in `held`, which
 * serves it below express's router, every other one on `router`. Each request is authenticated,
 * then counted against its key's rate limit, then validated against the document, then handled;
 * a route whose access does not match its document fails here, at start-up, not on a request.
 */
export function mountRoutes(router: Router, set: RouteSet, options: MountOptions, held: HeldRoutes): void {
  const validators = buildValidators(set.document);
  const checkAdmin = options.adminToken === null ? null : adminGuard(options.adminToken);
  const mounted: OperationValidator[] = [];

  for (const route of set.routes) {
    const validator = validators.get(route.operationId);
    if (!validator) throw new Error(`route ${route.operationId} is not an operation of its OpenAPI document`);
    const { spec } = validator;
    const keyed = route.access === "api-key" || route.access === "api-key-or-stream-token";
    if (keyed !== (spec.scope !== undefined)) {
      throw new Error(`route ${route.operationId}: access ${route.access} contradicts x-scope ${String(spec.scope)}`);
    }
    if (route.access === "admin" && checkAdmin === null) continue;
    mounted.push(validator);
    const limitRate = rateLimitCheck(options.rateLimits, spec, keyed);
    const authOptions = { region: options.region, requiredScope: spec.scope ?? null };

    const handle: OperationHandler = async (req, res) => {
      // The route's label in the metrics (see routeOf).
      res.locals.operationId = route.operationId;
      const auth =
        route.access === "api-key"
          ? await authenticate(options.keys, req, authOptions)
          : route.access === "api-key-or-stream-token"
            ? await authenticateKeyOrStreamToken(options.db, options.keys, req, authOptions)
            : null;
      await limitRate(auth, res);
      if (route.access === "admin") checkAdmin?.(req);
      enforceAllowance(auth, { operationId: route.operationId, rateClass: spec.rateClass });
      rethrowBodyError(res);
      const valid = validator.validate({ body: req.body, query: req.query as Record<string, unknown>, params: req.params as Record<string, string> });
      const reply = await route.handle({ ...valid, auth, requestId: requestIdOf(res), req, res });
      if (reply === undefined) return;
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      if (reply.body instanceof EncodedJson) {
        res.statusCode = reply.status;
        res.setHeader("content-type", "application/json; charset=utf-8");
        res.setHeader("content-length", reply.body.bytes.length);
        res.end(reply.body.bytes);
        return;
      }
      res.status(reply.status).json(reply.body);
    };
    if (route.held === true) held.add(spec.method, spec.expressPath, handle);
    else router[spec.method](spec.expressPath, handle);
  }
  compileAfterStartUp(mounted);
}

/** How long after its routes are mounted a process starts compiling their validators: past its start-up. */
export const VALIDATOR_WARM_UP_DELAY_MS = 1_000;

/**
 * Compiles the mounted routes' validators in the background, one per turn of the event loop,
 * from VALIDATOR_WARM_UP_DELAY_MS on: not before the process answers /health (compiling them
 * all was ~0.4 s of the monolith's 2.7 s start, issue 34), and before most first requests (a
 * route whose first request compiled its own schemas answered 10 to 50 ms later; a first wait
 * sent just before its message could miss it). A request that comes first compiles its own.
 * validator.test.ts compiles every operation of the documents, so none can fail here; were
 * one to, its route's requests would report it.
 */
function compileAfterStartUp(validators: OperationValidator[]): void {
  const next = () => {
    const validator = validators.shift();
    if (validator === undefined) return;
    try {
      validator.prepare();
    } catch {
      // Reported by the route's own requests (see above).
    }
    setImmediate(next);
  };
  setTimeout(next, VALIDATOR_WARM_UP_DELAY_MS).unref();
}
