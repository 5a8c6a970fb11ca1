import { createHash } from "node:crypto";
import { apiKeyEnvironment, generateApiKey, generateSmtpPassword, secretMatchesHash, sha256 } from "./secrets";

describe("API keys", () => {
  it("start with the prefix of their environment and carry 256 bits", () => {
    const test = generateApiKey("test");
    const live = generateApiKey("live");
    expect(test).toMatch(/^is_test_[A-Za-z0-9_-]{43}$/);
    expect(live).toMatch(/^is_live_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey("test")).not.toBe(test);
    expect(apiKeyEnvironment(test)).toBe("test");
    expect(apiKeyEnvironment(live)).toBe("live");
  });

  it.each(["", "is_test_", "is_test_short", "sk_live_abcdefghijklmnopqrstuvwxyz", "is_live_has space in it 0123456789", "Bearer is_test_x"])(
    "recognises %p as not a key",
    (value) => expect(apiKeyEnvironment(value)).toBeNull(),
  );
});

describe("secret storage", () => {
  it("stores the SHA-256 digest and compares against it", () => {
    const key = generateApiKey("test");
    const digest = sha256(key);
    expect(digest.equals(createHash("sha256").update(key).digest())).toBe(true);
    expect(secretMatchesHash(key, digest)).toBe(true);
    expect(secretMatchesHash(`${key}x`, digest)).toBe(false);
    expect(secretMatchesHash(key, Buffer.alloc(3))).toBe(false);
  });

  it("generates distinct SMTP passwords", () => {
    expect(generateSmtpPassword()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(generateSmtpPassword()).not.toBe(generateSmtpPassword());
  });
});
