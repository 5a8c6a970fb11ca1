import { MailstopError, SCOPES, isScope } from "@mailstop/core";
import type { Config } from "@mailstop/config";
import type { AuthContext } from "@mailstop/http";
import { invalidRequest } from "@mailstop/openapi";
import type { PublicComponents } from "@mailstop/openapi";

export type AuthCheckView = PublicComponents["schemas"]["AuthCheck"];

/** The key context (schema `AuthCheck`; docs/api.md "Checking a key before a run"), returned by the auth check and by fixtures. */
export function keyContextView(auth: AuthContext, config: Config): AuthCheckView {
  return {
    status: "authenticated",
    key: { id: auth.key.id, environment: auth.key.environment, expires_at: auth.key.expiresAt?.toISOString() ?? null },
    project: { id: auth.project.id, key: auth.project.key },
    // Reported in the canonical order of the scope set, whatever order they were granted in.
    scopes: SCOPES.filter((scope) => auth.scopes.includes(scope)),
    server: { environment: config.environment, region: config.region, api_origin: config.http.publicUrl },
  };
}

export interface Expectations {
  projectId?: string;
  environment?: string;
  scopes?: readonly string[];
}

/**
 * Fails explicitly when the caller's expectations of its context do not hold: a different
 * project (by id or key) or deployment environment is `forbidden` naming the field, a missing
 * scope is `insufficient_scope`. Checking grants nothing.
 */
export function assertExpectations(auth: AuthContext, config: Config, expected: Expectations): void {
  if (expected.projectId !== undefined && expected.projectId !== auth.project.id && expected.projectId !== auth.project.key) {
    throw new MailstopError("forbidden", `This key belongs to project ${auth.project.id} (${auth.project.key}), not ${expected.projectId}.`, {
      details: { mismatch: "project_id", expected: expected.projectId, actual: auth.project.id },
    });
  }
  if (expected.environment !== undefined && expected.environment !== config.environment) {
    throw new MailstopError("forbidden", `This server is the ${config.environment} environment, not ${expected.environment}.`, {
      details: { mismatch: "environment", expected: expected.environment, actual: config.environment },
    });
  }
  const missing = (expected.scopes ?? []).filter((scope) => !auth.scopes.includes(scope));
  if (missing.length > 0) {
    throw new MailstopError("insufficient_scope", `The key lacks the expected scope ${missing.join(", ")}.`, {
      details: { required_scope: missing[0], missing_scopes: missing },
    });
  }
}

/** Parses the auth check's comma-separated `scopes`; an unknown scope is an invalid expectation. */
export function parseScopeList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    invalidRequest([{ in: "query", path: "/scopes", message: `unknown scope ${unknown.join(", ")}; scopes are ${SCOPES.join(", ")}` }]);
  }
  return scopes;
}
