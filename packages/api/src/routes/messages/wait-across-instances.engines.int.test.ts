import { newId } from "@mailstop/core";
import { type TestServer, eventually, uniqueTag, useTestServer } from "@mailstop/testkit";

// Waits across two waiter instances sharing one Redis and one database, as in the split fleet:
// an arrival ingested through one wakes a wait held by the other, and max_concurrent_waits
// counts both. Two processes in this one need the real engines.
const server = useTestServer({ mail: true });
const send = (to: string, subject: string, text = "hello") => server.send({ to, subject, text });

describe("concurrency across waiter instances", () => {
  // A second waiter on the same Redis and database, as in the split fleet.
  const second = useTestServer(() => ({ target: "waiter", env: { REDIS_URL: server.config.redisUrl!, MAILSTOP_REDIS_PREFIX: server.config.redisPrefix }, project: false }));

  const waitOn = (target: TestServer, key: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${target.url}/v1/messages/wait`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  it("wakes a wait on one instance with an arrival ingested through the other", async () => {
    const inbox = await server.createInbox();
    const subject = `Cross ${newId("message")}`;
    const pending = waitOn(second, server.apiKey, { inbox: inbox.id, match: { subject_contains: "cross" }, timeout_ms: 20_000 });
    await send(inbox.address, subject);
    const json = await (await pending).json();
    expect(json).toMatchObject({ status: "matched", message: { subject } });
  });

  it("counts max_concurrent_waits across both instances, refuses with 429 concurrency_limit, and frees a slot when its client leaves", async () => {
    const limited = await server.bootstrap();
    await server.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: limited.projectId } }, body: { limits: { max_concurrent_waits: 2 } } });
    const inbox = await server.createInbox({ tag: uniqueTag("slots") }, limited);
    const long = { inbox: inbox.id, match: { subject_contains: "never" }, timeout_ms: 60_000 };
    const first = new AbortController();
    const secondWait = new AbortController();
    const held = [waitOn(server, limited.apiKey, long, first.signal).catch(() => null), waitOn(second, limited.apiKey, long, secondWait.signal).catch(() => null)];
    try {
      // Both are held once a third is refused; poll until then (each refusal is immediate).
      const refused = await eventually(
        async () => {
          const response = await waitOn(second, limited.apiKey, { ...long, timeout_ms: 10 });
          return response.status === 429 ? response : null;
        },
        // Generous: on a loaded machine two waits through two instances took over 10 s to be held (CI-like run).
        { what: "a refusal once two waits are held", timeoutMs: 30_000 },
      );
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toEqual({
        error: { code: "concurrency_limit", reason: expect.any(String), retryable: true, retry_after_seconds: 1, details: { limit: 2 } },
      });

      first.abort();
      const admitted = await eventually(
        async () => {
          const response = await waitOn(server, limited.apiKey, { ...long, timeout_ms: 10 });
          return response.status === 200 ? response : null;
        },
        { what: "a slot freed by the client that left", timeoutMs: 30_000 },
      );
      expect(((await admitted.json()) as { status: string }).status).toBe("timeout");
    } finally {
      first.abort();
      secondWait.abort();
      await Promise.all(held);
    }
  });
});
