import { type TestServer, startTestServer } from "@mailstop/testkit";

// MAILSTOP_METRICS=off on a split smtp-edge: its operations listener answers /metrics as an
// unknown route. A split target needs the shared Redis, so this runs on the real engines only.

describe("an smtp-edge with MAILSTOP_METRICS=off", () => {
  let edge: TestServer;
  beforeAll(async () => {
    edge = await startTestServer({ target: "smtp-edge", mail: true, env: { MAILSTOP_METRICS: "off" } });
  });
  afterAll(() => edge?.stop());

  it("answers /metrics on its operations listener as an unknown route, and is ready", async () => {
    const ops = `http://127.0.0.1:${edge.running.context.opsAddress!.port}`;
    const scrape = await fetch(`${ops}/metrics`);
    expect(scrape.status).toBe(404);
    expect(await scrape.json()).toMatchObject({ error: { code: "invalid_request", reason: "No route GET /metrics." } });
    expect((await fetch(`${ops}/ready`)).status).toBe(200);
  });
});
