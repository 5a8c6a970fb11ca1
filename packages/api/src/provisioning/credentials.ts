import { type AuditSource, type KeyEnvironment, type Scope, SCOPES, apiKeyEnvironment, generateApiKey, generateSmtpPassword, newId, sha256 } from "@mailstop/core";
import { type Db, audited, insertApiKey, upsertSmtpCredential } from "@mailstop/db";

export interface IssuedApiKey {
  id: string;
  /** Shown once; only its SHA-256 digest is stored. */
  key: string;
  scopes: Scope[];
  environment: KeyEnvironment;
  expiresAt: Date | null;
}

/**
 * Issues an API key for a project: every scope and `test` unless told otherwise. A `fixedKey`
 * (MAILSTOP_BOOTSTRAP_API_KEY) is stored instead of a random one; its prefix names its environment.
 * Audited as `api_key.created` (never the key, only its id, scopes and environment).
 */
export async function issueApiKey(
  db: Db,
  projectId: string,
  options: { scopes?: readonly string[]; environment?: KeyEnvironment; expiresAt?: Date | null; fixedKey?: string },
  source: AuditSource,
): Promise<IssuedApiKey> {
  const environment = (options.fixedKey === undefined ? null : apiKeyEnvironment(options.fixedKey)) ?? options.environment ?? "test";
  const key = options.fixedKey ?? generateApiKey(environment);
  const scopes = SCOPES.filter((scope) => (options.scopes ?? SCOPES).includes(scope));
  const id = newId("apiKey");
  const expiresAt = options.expiresAt ?? null;
  await audited(
    db,
    (trx) => insertApiKey(trx, { id, projectId, keyHash: sha256(key), environment, scopes, expiresAt }),
    () => ({ projectId, source, action: "api_key.created", target: { type: "api_key", id }, details: { scopes, environment, expires_at: expiresAt?.toISOString() ?? null } }),
  );
  return { id, key, scopes, environment, expiresAt: options.expiresAt ?? null };
}

/**
 * Issues the project's SMTP credential (username = project key), replacing the previous one;
 * audited as `smtp_credential.replaced` (the first one too: it replaces none).
 */
export async function issueSmtpCredential(
  db: Db,
  project: { id: string; key: string },
  source: AuditSource,
  fixedPassword?: string,
): Promise<{ username: string; password: string }> {
  const password = fixedPassword ?? generateSmtpPassword();
  await audited(
    db,
    (trx) => upsertSmtpCredential(trx, { projectId: project.id, username: project.key, passwordHash: sha256(password) }),
    () => ({ projectId: project.id, source, action: "smtp_credential.replaced", target: { type: "smtp_credential", id: project.key } }),
  );
  return { username: project.key, password };
}
