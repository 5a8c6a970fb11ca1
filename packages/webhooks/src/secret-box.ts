import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

/**
 * Endpoint secrets at rest: AES-256-GCM under MAILSTOP_SECRETS_KEY (32 bytes), a fresh 12-byte
 * IV per value, stored as `v1.<iv>.<tag>.<ciphertext>` in base64url. Unlike API keys they
 * cannot be hashed: every delivery must sign with them.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("a secrets key is 32 bytes");
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), sealed].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
  }

  /** The box of MAILSTOP_SECRETS_KEY as given: 64 hex digits or base64 (the config checked its length). */
  static fromSetting(value: string): SecretBox {
    return new SecretBox(Buffer.from(value, /^[0-9a-f]{64}$/i.test(value) ? "hex" : "base64"));
  }

  open(stored: string): string {
    const [version, iv, tag, sealed] = stored.split(".");
    if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined) throw new Error("not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8");
  }
}
