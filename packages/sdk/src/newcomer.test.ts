import { type IncomingMessage, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Mailstop, MailstopError } from "./index";

// The SDK's answers to a newcomer's first mistakes (issue 31), against a plain HTTP server on
// 127.0.0.1 that records what reaches it: a missing key is refused before any request, a
// timeout among the match predicates before any request, and the old `timeout_ms` option
// still works with a deprecation warning.
let server: Server;
let baseUrl: string;
const received: { path: string; body: Record<string, unknown> }[] = [];

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    received.push({ path: request.url ?? "", body: await bodyOf(request) });
    response.setHeader("content-type", "application/json");
    if (request.url === "/health") return response.end(JSON.stringify({ status: "ok" }));
    response.end(JSON.stringify({ status: "matched", message: { id: "msg_1", subject: "hi" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  received.length = 0;
});

describe("without a key", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.MAILSTOP_API_KEY;
    delete process.env.MAILSTOP_API_KEY;
  });
  afterEach(() => {
    if (saved !== undefined) process.env.MAILSTOP_API_KEY = saved;
  });

  it("refuses an authenticated call before sending it, naming MAILSTOP_API_KEY and the apiKey option", async () => {
    const error = await new Mailstop({ baseUrl, maxAttempts: 3 }).inboxes.list().catch((cause: unknown) => cause);
    expect(error).toBeInstanceOf(MailstopError);
    expect(error).toMatchObject({ code: "unauthenticated", retryable: false, status: 0 });
    expect((error as Error).message).toContain("MAILSTOP_API_KEY");
    expect((error as Error).message).toContain("apiKey");
    expect((error as Error).message).toContain("mailstop keys create --project local");
    expect(received).toEqual([]);
  });

  it("still reaches the unauthenticated routes", async () => {
    await expect(new Mailstop({ baseUrl }).meta.health()).resolves.toEqual({ status: "ok" });
    expect(received.map((request) => request.path)).toEqual(["/health"]);
  });
});

describe("the wait's timeout", () => {
  const mailstop = () => new Mailstop({ baseUrl, apiKey: "is_test_x" });

  it("is timeoutMs, sent as the REST body's timeout_ms", async () => {
    await mailstop().messages.waitFor("ibx_1", { subject_contains: "hi" }, { timeoutMs: 1234 });
    expect(received[0]?.body).toEqual({ inbox: "ibx_1", match: { subject_contains: "hi" }, timeout_ms: 1234 });
  });

  it("still takes timeout_ms, with a deprecation warning naming timeoutMs", async () => {
    // Watched where the SDK emits it: jest's sandbox does not pass its process's warnings on.
    const emitted = jest.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    let calls: unknown[][];
    try {
      await mailstop().messages.waitFor("ibx_1", {}, { timeout_ms: 999 });
      calls = [...emitted.mock.calls];
    } finally {
      emitted.mockRestore();
    }
    expect(received[0]?.body).toMatchObject({ timeout_ms: 999 });
    expect(calls).toEqual([[expect.stringContaining('use "timeoutMs"'), expect.objectContaining({ type: "DeprecationWarning" })]]);
  });

  it("is refused among the match predicates, before any request, naming the option", async () => {
    const error = await mailstop()
      .messages.waitFor("ibx_1", { subject_contains: "hi", timeout_ms: 5000 } as never)
      .catch((cause: unknown) => cause);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain("{ timeoutMs }");
    expect(received).toEqual([]);
  });
});
