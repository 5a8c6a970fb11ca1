import { Webhook } from "standardwebhooks";
import { nextAttemptDelayMs } from "./retry-schedule";
import { SecretBox } from "./secret-box";
import { newWebhookSecret, signedHeaders } from "./signing";

describe("signedHeaders", () => {
  const body = JSON.stringify({ type: "webhook.test", timestamp: "2026-11-25T00:00:00.000Z", data: {} });

  it("is accepted by the standardwebhooks verifier", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = signedHeaders([secret], "whe_1", new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("with two secrets, each one verifies on its own (the overlap after a rotation)", () => {
    const [old, fresh] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signedHeaders([fresh, old], "whe_2", new Date(), body);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [old, fresh]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("a changed body no longer verifies", () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders([secret], "whe_3", new Date(), body);
    expect(() => new Webhook(secret).verify(body.replace("test", "tset"), headers)).toThrow();
  });
});

describe("SecretBox", () => {
  const box = new SecretBox(Buffer.alloc(32, 7));

  it("opens what it sealed, with a fresh IV each time", () => {
    const sealed = [box.seal("whsec_abc"), box.seal("whsec_abc")];
    expect(sealed[0]).not.toBe(sealed[1]);
    expect(sealed[0]).not.toContain("whsec_abc");
    expect(sealed.map((value) => box.open(value))).toEqual(["whsec_abc", "whsec_abc"]);
  });

  it("refuses a tampered value and another key", () => {
    const sealed = box.seal("whsec_abc");
    const parts = sealed.split(".");
    parts[3] = Buffer.from("whsec_abd").toString("base64url");
    expect(() => box.open(parts.join("."))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow();
  });

  it("reads MAILSTOP_SECRETS_KEY as 64 hex digits or as base64, the same key either way", () => {
    const key = Buffer.alloc(32, 9);
    const sealed = SecretBox.fromSetting(key.toString("hex")).seal("whsec_x");
    expect(SecretBox.fromSetting(key.toString("base64")).open(sealed)).toBe("whsec_x");
  });
});

describe("nextAttemptDelayMs", () => {
  it("follows the schedule with up to 10 % jitter, and ends after it", () => {
    expect(nextAttemptDelayMs([5, 300], 1, () => 0)).toBe(5_000);
    expect(nextAttemptDelayMs([5, 300], 1, () => 1)).toBe(5_500);
    expect(nextAttemptDelayMs([5, 300], 2, () => 0.5)).toBe(315_000);
    expect(nextAttemptDelayMs([5, 300], 3)).toBeNull();
  });
});
