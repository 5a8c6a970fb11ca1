import type { Response } from "express";
import { MailstopError } from "@mailstop/core";
import { InProcessRateLimits } from "@mailstop/messaging";
import { listOperations, publicDocument } from "@mailstop/openapi";
import type { AuthContext } from "./auth-context";
import { rateLimitCheck } from "./rate-limit";

const operations = listOperations(publicDocument());
const operation = (id: string) => operations.get(id)!;

function auth(keyId: string, rateLimits: AuthContext["project"]["rateLimits"] = { read: null, write: null }): AuthContext {
  return {
    key: { id: keyId, environment: "test", expiresAt: null },
    scopes: [],
    project: { id: "prj_1", key: "p", region: "us", maxConcurrentWaits: 100, rateLimits },
    organisation: { id: "org_1", organisationLimits: false },
    spentLimit: null,
  };
}

/** The headers a check sets, on a stand-in for express's response (only setHeader is used). */
function response(): { res: Response; headers: Map<string, string> } {
  const headers = new Map<string, string>();
  return { res: { setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value) } as unknown as Response, headers };
}

const settings = () => ({ limits: new InProcessRateLimits(), defaults: { read: 2, write: 1 } });

describe("rateLimitCheck", () => {
  it("refuses to mount a keyed operation whose document gives no x-rate-class", () => {
    const { "x-rate-class": _class, ...operationWithout } = operation("listInboxes").operation;
    const spec = { ...operation("listInboxes"), rateClass: undefined, operation: operationWithout };
    expect(() => rateLimitCheck(settings(), spec, true)).toThrow(/listInboxes needs a key but its document gives no x-rate-class/);
  });

  it("never counts the exempt wait nor a keyless route, and sets no headers on them", async () => {
    for (const [id, keyed] of [["waitForMessage", true], ["getHealth", false]] as const) {
      const check = rateLimitCheck(settings(), operation(id), keyed);
      const { res, headers } = response();
      for (let i = 0; i < 10; i++) await check(auth("key_a"), res);
      expect(headers.size).toBe(0);
    }
  });

  it("with rate limits turned off (no settings), counts nothing and sets no headers, but still refuses a keyed operation without a class", async () => {
    const check = rateLimitCheck(null, operation("createInbox"), true);
    const { res, headers } = response();
    for (let i = 0; i < 50; i++) await check(auth("key_a"), res);
    expect(headers.size).toBe(0);
    const { "x-rate-class": _class, ...operationWithout } = operation("listInboxes").operation;
    expect(() => rateLimitCheck(null, { ...operation("listInboxes"), rateClass: undefined, operation: operationWithout }, true)).toThrow(/no x-rate-class/);
  });

  it("draws on the key's bucket of the operation's class, the project's rate before the default", async () => {
    const shared = settings();
    const read = rateLimitCheck(shared, operation("listInboxes"), true);
    const write = rateLimitCheck(shared, operation("createInbox"), true);
    const { res, headers } = response();
    await read(auth("key_a"), res);
    expect(Object.fromEntries(headers)).toEqual({ "ratelimit-policy": "4;w=2", "ratelimit-limit": "4", "ratelimit-remaining": "3", "ratelimit-reset": "2" });
    await write(auth("key_a"), res);
    expect(headers.get("ratelimit-limit")).toBe("2");
    await read(auth("key_b", { read: 5, write: null }), res);
    expect([headers.get("ratelimit-limit"), headers.get("ratelimit-remaining")]).toEqual(["10", "9"]);
  });

  it("throws rate_limited past the bucket, with the seconds to wait and the wait named", async () => {
    const write = rateLimitCheck(settings(), operation("createInbox"), true);
    const { res, headers } = response();
    await write(auth("key_a"), res);
    await write(auth("key_a"), res);
    const refusal = await write(auth("key_a"), res).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(MailstopError);
    const error = refusal as MailstopError;
    expect([error.code, error.retryAfterSeconds, error.details]).toEqual(["rate_limited", 2, { rate_class: "write", limit: 1 }]);
    expect(error.reason).toContain("POST /v1/messages/wait");
    expect(headers.get("ratelimit-remaining")).toBe("0");
  });
});
