import { isIdempotent, retryingFetch } from "./retry";

// The retry policy on its own: which calls may be repeated, and how often and how late. The
// server side of it (a real 429 concurrency_limit honoured) is in sdk.int.test.ts.

/** A fetch answering each call with the next of `answers` (a status, or a thrown network failure). */
function scripted(answers: Array<number | Error>, body: (status: number) => unknown = () => ({})) {
  const calls: Request[] = [];
  const base = (async (input: Request) => {
    calls.push(input);
    const answer = answers[calls.length - 1] ?? 200;
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify(body(answer)), { status: answer, headers: { "content-type": "application/json" } });
  }) as unknown as typeof fetch;
  return { base, calls };
}

const post = (path: string, body = "{}") => new Request(`http://mailstop.test${path}`, { method: "POST", body, headers: { "content-type": "application/json" } });
const get = (path: string) => new Request(`http://mailstop.test${path}`);
const rateLimited = (seconds: number) => ({ error: { code: "rate_limited", reason: "slow down", retryable: true, retry_after_seconds: seconds } });

describe("isIdempotent", () => {
  it.each([
    ["GET", "/v1/messages"],
    ["DELETE", "/v1/inboxes/ibx_1"],
    ["PATCH", "/v1/webhooks/whk_1"],
    ["POST", "/v1/inboxes"],
    ["POST", "/v1/inboxes/for-run"],
    ["POST", "/v1/inboxes/cleanup"],
    ["POST", "/v1/fixtures/ensure"],
    ["POST", "/v1/messages/wait"],
    ["POST", "/v1/erasure"],
    ["POST", "/v1/domains/dom_1/verify"],
  ])("repeats %s %s", (method, path) => expect(isIdempotent(method, path)).toBe(true));

  it.each([
    ["POST", "/v1/domains"],
    ["POST", "/v1/webhooks"],
    ["POST", "/v1/webhooks/whk_1/rotate-secret"],
    ["POST", "/v1/webhooks/whk_1/test"],
    ["POST", "/v1/inboxes/ibx_1/stream-token"],
  ])("never repeats %s %s", (method, path) => expect(isIdempotent(method, path)).toBe(false));
});

describe("retryingFetch", () => {
  const policy = { maxAttempts: 3, maxRetryDelayMs: 30_000 };

  /** `request` made against a server answering `answers`: the status it ends with, and the calls it took. */
  async function made(request: Request, answers: Array<number | Error>, body?: (status: number) => unknown) {
    const { base, calls } = scripted(answers, body);
    const { status } = await retryingFetch(base, policy)(request);
    return { status, calls: calls.length, sent: calls };
  }

  it("retries an idempotent call on 503 and on a lost connection, resending the body, at most maxAttempts times", async () => {
    const { sent, ...outcome } = await made(post("/v1/messages/wait", '{"inbox":"ibx_1"}'), [503, new TypeError("fetch failed"), 200]);
    expect(outcome).toEqual({ status: 200, calls: 3 });
    expect(await Promise.all(sent.map((call) => call.text()))).toEqual(Array(3).fill('{"inbox":"ibx_1"}'));
    expect(await made(get("/v1/usage"), [503, 503, 503, 200])).toMatchObject({ status: 503, calls: 3 });
  });

  it("makes a call that is not idempotent once, whatever it meets", async () => {
    expect(await made(post("/v1/webhooks"), [503, 200])).toMatchObject({ status: 503, calls: 1 });
    const lost = scripted([new TypeError("fetch failed"), 200]);
    await expect(retryingFetch(lost.base, policy)(post("/v1/domains"))).rejects.toMatchObject({ code: "network_error", retryable: true });
    expect(lost.calls).toHaveLength(1);
  });

  it("names the origin and the system's code of a lost connection, not fetch's \"fetch failed\"", async () => {
    const refused = scripted([new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }) })]);
    await expect(retryingFetch(refused.base, { ...policy, maxAttempts: 1 })(get("/v1/usage?x=1"))).rejects.toMatchObject({
      code: "network_error",
      message: "Could not reach mailstop at http://mailstop.test (ECONNREFUSED)",
    });
    const other = scripted([new TypeError("fetch failed", { cause: new Error("other side closed") })]);
    await expect(retryingFetch(other.base, { ...policy, maxAttempts: 1 })(get("/v1/usage"))).rejects.toMatchObject({ message: "Could not reach mailstop at http://mailstop.test (other side closed)" });
  });

  it("waits retry_after_seconds before retrying, and gives the 429 back when the server asks for longer than maxRetryDelayMs", async () => {
    const started = Date.now();
    expect(await made(get("/v1/inboxes"), [429, 200], () => rateLimited(1))).toMatchObject({ status: 200, calls: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(await made(get("/v1/inboxes"), [429, 200], () => rateLimited(60))).toMatchObject({ status: 429, calls: 1 });
  });

  it("does not retry a client error", async () => {
    expect(await made(get("/v1/inboxes/x"), [404, 200])).toMatchObject({ status: 404, calls: 1 });
  });
});
