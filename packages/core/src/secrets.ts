import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** `test` keys start `is_test_`, `live` keys `is_live_` (docs/api.md "Authentication"). */
export type KeyEnvironment = "test" | "live";

const KEY_PREFIX: Record<KeyEnvironment, string> = { test: "is_test_", live: "is_live_" };
// 32 random bytes in base64url: 43 characters, 256 bits of entropy.
const KEY_SECRET = /^[A-Za-z0-9_-]{20,128}$/;

/** A new API key; the caller shows it once and stores only {@link sha256}. */
export function generateApiKey(environment: KeyEnvironment): string {
  return KEY_PREFIX[environment] + randomBytes(32).toString("base64url");
}

/** The environment a key's prefix names, or null when the value is not shaped like a key. */
export function apiKeyEnvironment(key: string): KeyEnvironment | null {
  for (const environment of ["test", "live"] as const) {
    const prefix = KEY_PREFIX[environment];
    if (key.startsWith(prefix)) return KEY_SECRET.test(key.slice(prefix.length)) ? environment : null;
  }
  return null;
}

const STREAM_TOKEN_PREFIX = "is_stream_";

/** A new stream token (256 bits), shown once and stored as its SHA-256 digest. */
export function generateStreamToken(): string {
  return STREAM_TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** True when `value` is shaped like a stream token (so a lookup is worth making). */
export function isStreamTokenShaped(value: string): boolean {
  return value.startsWith(STREAM_TOKEN_PREFIX) && KEY_SECRET.test(value.slice(STREAM_TOKEN_PREFIX.length));
}

/** A new SMTP password (base64url, 192 bits), shown once. */
export function generateSmtpPassword(): string {
  return randomBytes(24).toString("base64url");
}

/** A random url-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

/** The SHA-256 digest under which a secret is stored. */
export function sha256(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** Constant-time comparison of a presented secret with a stored SHA-256 digest. */
export function secretMatchesHash(presented: string, storedHash: Uint8Array): boolean {
  const digest = sha256(presented);
  return storedHash.length === digest.length && timingSafeEqual(digest, storedHash);
}
