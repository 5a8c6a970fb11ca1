import { uniqueTag, useTestServer } from "@mailstop/testkit";

// MAILSTOP_METRICS=off: no listener serves /metrics (it is an unknown route, 404), and the
// server still takes mail and answers the API, whose paths record through the no-op recorder.
// The split smtp-edge's operations listener is in metrics-off.engines.int.test.ts.

describe("a server with MAILSTOP_METRICS=off", () => {
  const server = useTestServer({ mail: true, env: { MAILSTOP_METRICS: "off" } });

  it("answers /metrics as an unknown route, and still takes mail, holds a wait and serves the message", async () => {
    const scrape = await server.request("GET", "/metrics", { apiKey: null });
    expect(scrape.status).toBe(404);
    expect(scrape.json).toMatchObject({ error: { code: "invalid_request", reason: "No route GET /metrics." } });
    expect((await server.request("GET", "/health", { apiKey: null })).status).toBe(200);

    const inbox = await server.createInbox();
    const waiting = server.request("POST", "/v1/messages/wait", { body: { inbox: inbox.address, timeout_ms: 30_000 } });
    const subject = `Metrics off ${uniqueTag("m")}`;
    await server.send({ to: inbox.address, subject, text: "Your code is 314159" });
    const waited = await waiting;
    expect(waited.status).toBe(200);
    const { id } = (waited.json as { message: { id: string } }).message;
    const read = await server.request("GET", `/v1/messages/${id}`);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ subject });
  });
});
