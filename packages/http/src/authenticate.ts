import type { Request } from "express";
import { MailstopError, apiKeyEnvironment, isStreamTokenShaped, periodStart, secretMatchesHash, sha256, spentLimit } from "@mailstop/core";
import { type ApiKeyRecord, type Db, findStreamTokenByHash } from "@mailstop/db";
import type { ApiKeyLookup } from "./api-key-cache";
import type { AuthContext } from "./auth-context";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

interface AuthOptions {
  region: "us" | "eu";
  requiredScope: string | null;
  now?: Date;
}

function hasAuthorizationHeader(req: Request): boolean {
  const header = req.headers.authorization;
  return header !== undefined && header.trim() !== "";
}

/** The credential of an `Authorization: Bearer …` header: unauthenticated when absent. */
export function bearerToken(req: Request): string {
  if (!hasAuthorizationHeader(req)) {
    throw new MailstopError("unauthenticated", "Send your API key as `Authorization: Bearer <key>`.");
  }
  const match = BEARER.exec(req.headers.authorization!);
  if (!match?.[1]) throw new MailstopError("invalid_api_key", "The Authorization header must be `Bearer <key>`.");
  return match[1];
}

/**
 * The checks every credential passes after its key is found, in the documented order
 * (docs/api.md "The order of the checks"): an expired key, a suspended organisation, a region
 * mismatch, and last the route's scope.
 */
function authorize(record: ApiKeyRecord, options: AuthOptions): AuthContext {
  if (record.expiresAt !== null && record.expiresAt.getTime() <= (options.now ?? new Date()).getTime()) {
    throw new MailstopError("invalid_api_key", "The API key has expired.");
  }
  if (record.organisation.suspended) {
    throw new MailstopError("abuse_suspended", "The organisation of this key is suspended; contact the abuse desk.");
  }
  if (record.project.region !== options.region) {
    throw new MailstopError("forbidden", `This project lives in region ${record.project.region}; call that region's API.`, {
      details: { project_region: record.project.region },
    });
  }
  if (options.requiredScope !== null && !record.scopes.includes(options.requiredScope)) {
    throw new MailstopError("insufficient_scope", `This route needs the ${options.requiredScope} scope, which the key lacks.`, {
      details: { required_scope: options.requiredScope },
    });
  }
  return {
    key: { id: record.id, environment: record.environment, expiresAt: record.expiresAt },
    scopes: record.scopes,
    project: record.project,
    organisation: { id: record.organisation.id, organisationLimits: record.organisation.organisationLimits },
    spentLimit: spentLimit(record.limits),
  };
}

/**
 * Resolves the API key of a request: `unauthenticated` before anything else, then an unknown
 * or revoked key, then {@link authorize}. `keys` is the process's ApiKeyCache: one indexed
 * query when it does not hold the key, none when it does; a revoked key is forgotten by every
 * instance's cache within a second (docs/decisions.md "The API-key cache").
 */
export async function authenticate(keys: ApiKeyLookup, req: Request, options: AuthOptions): Promise<AuthContext> {
  const key = bearerToken(req);
  if (apiKeyEnvironment(key) === null) {
    throw new MailstopError("invalid_api_key", "This is not a mailstop API key; keys start with is_live_ or is_test_.");
  }
  const record = await keys.find(sha256(key), periodStart(options.now ?? new Date()));
  // The lookup is by digest; the comparison is repeated in constant time so no code path
  // branches on the secret itself.
  if (record === null || !secretMatchesHash(key, record.keyHash) || record.revokedAt !== null) {
    throw new MailstopError("invalid_api_key", "The API key is unknown or has been revoked.");
  }
  return authorize(record, options);
}

/**
 * The event stream's credential: the Bearer header when one is sent (it wins), else a stream
 * token in `?token=`. A token that is unknown, expired, or whose key was revoked opens
 * nothing: `unauthenticated`, like no credential at all. Which inbox it opens is checked by
 * the route, against `streamToken.inbox`.
 */
export async function authenticateKeyOrStreamToken(db: Db, keys: ApiKeyLookup, req: Request, options: AuthOptions): Promise<AuthContext> {
  if (hasAuthorizationHeader(req)) return authenticate(keys, req, options);
  const token = req.query.token;
  if (typeof token !== "string" || token === "") {
    throw new MailstopError("unauthenticated", "Send your API key as `Authorization: Bearer <key>`, or a stream token as `?token=`.");
  }
  const now = options.now ?? new Date();
  const record = isStreamTokenShaped(token) ? await findStreamTokenByHash(db, sha256(token), periodStart(now)) : null;
  if (record === null || !secretMatchesHash(token, record.tokenHash) || record.key.revokedAt !== null) {
    throw new MailstopError("unauthenticated", "This stream token is unknown or its key was revoked; mint a new one.");
  }
  if (record.expiresAt.getTime() <= now.getTime()) {
    throw new MailstopError("unauthenticated", "This stream token has expired; mint a new one with POST /v1/inboxes/{id}/stream-token.");
  }
  return { ...authorize(record.key, options), streamToken: { inbox: record.inbox, expiresAt: record.expiresAt } };
}
