import { type KeyEnvironment, type Scope, SCOPES, apiKeyEnvironment, generateApiKey, generateSmtpPassword, newId, sha256 } from "@mailstop/core";
import { type Db, insertApiKey, upsertSmtpCredential } from "@mailstop/db";

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
 */
export async function issueApiKey(
  db: Db,
  projectId: string,
  options: { scopes?: readonly string[]; environment?: KeyEnvironment; expiresAt?: Date | null; fixedKey?: string },
): Promise<IssuedApiKey> {
  const environment = (options.fixedKey === undefined ? null : apiKeyEnvironment(options.fixedKey)) ?? options.environment ?? "test";
  const key = options.fixedKey ?? generateApiKey(environment);
  const scopes = SCOPES.filter((scope) => (options.scopes ?? SCOPES).includes(scope));
  const id = newId("apiKey");
  await insertApiKey(db, { id, projectId, keyHash: sha256(key), environment, scopes, expiresAt: options.expiresAt ?? null });
  return { id, key, scopes, environment, expiresAt: options.expiresAt ?? null };
}

/** Issues the project's SMTP credential (username = project key), replacing the previous one. */
export async function issueSmtpCredential(db: Db, project: { id: string; key: string }, fixedPassword?: string): Promise<{ username: string; password: string }> {
  const password = fixedPassword ?? generateSmtpPassword();
  await upsertSmtpCredential(db, { projectId: project.id, username: project.key, passwordHash: sha256(password) });
  return { username: project.key, password };
}
