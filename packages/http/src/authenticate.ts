import type { Request } from "express";
import { MailstopError, apiKeyEnvironment, secretMatchesHash, sha256 } from "@mailstop/core";
import { type Db, findApiKeyByHash } from "@mailstop/db";
import type { AuthContext } from "./auth-context";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of an `Authorization: Bearer …` header: unauthenticated when absent. */
export function bearerToken(req: Request): string {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") {
    throw new MailstopError("unauthenticated", "Send your API key as `Authorization: Bearer <key>`.");
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) throw new MailstopError("invalid_api_key", "The Authorization header must be `Bearer <key>`.");
  return match[1];
}

/**
 * Resolves the API key of a request, in the order SPEC.md fixes: `unauthenticated` before
 * anything else, then an unknown, revoked or expired key, a suspended organisation, a region
 * mismatch, and last the route's scope. One indexed query; nothing is cached, so a revoked
 * key fails on its very next request on every instance.
 */
export async function authenticate(
  db: Db,
  req: Request,
  options: { region: "us" | "eu"; requiredScope: string | null; now?: Date },
): Promise<AuthContext> {
  const key = bearerToken(req);
  if (apiKeyEnvironment(key) === null) {
    throw new MailstopError("invalid_api_key", "This is not a mailstop API key; keys start with is_live_ or is_test_.");
  }
  const record = await findApiKeyByHash(db, sha256(key));
  // The lookup is by digest; the comparison is repeated in constant time so no code path
  // branches on the secret itself.
  if (record === null || !secretMatchesHash(key, record.keyHash) || record.revokedAt !== null) {
    throw new MailstopError("invalid_api_key", "The API key is unknown or has been revoked.");
  }
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
  };
}
