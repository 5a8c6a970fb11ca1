import { uniqueTag, useTestServer } from "@mailstop/testkit";
import { call, mcpHelpers } from "./mcp.fixture";

// POST /mcp on a split api beside a split waiter, both sharing the suite's Redis and database
// (as in the fleet), in this process: the real engines only.

const server = useTestServer({ mail: true });
const { httpClient, aWaitIsHeld, waitThenSend } = mcpHelpers(server);

describe("POST /mcp on a split api", () => {
  // As in the fleet: the api serves /mcp but holds no waits; MAILSTOP_WAITER_URL sends the
  // tool's wait to a waiter. Mail arrives through the suite's monolith, on the same Redis.
  const shared = () => ({ REDIS_URL: server.config.redisUrl!, MAILSTOP_REDIS_PREFIX: server.config.redisPrefix });
  const waiter = useTestServer(() => ({ target: "waiter", env: shared(), project: false }));
  const api = useTestServer(() => ({ target: "api", env: { ...shared(), MAILSTOP_WAITER_URL: waiter.url }, project: false }));

  it("waits on the waiter and reads through the api", async () => {
    const client = await httpClient(server.apiKey, api.url);
    try {
      const tag = uniqueTag("split");
      const address = /inbox (\S+@\S+) /.exec((await call(client, "create_inbox", { tag })).text)![1]!;
      await waitThenSend(client, address, () => aWaitIsHeld(waiter));
      expect((await call(client, "get_latest_code", { inbox: address })).text).toMatch(/^Code: 482913\n/);
    } finally {
      await client.close();
    }
  });

  it("serves /mcp only where the api is: a waiter answers the unknown-route 404", async () => {
    const response = await waiter.request("POST", "/mcp", { apiKey: server.apiKey, body: {} });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ error: { code: "invalid_request" } });
  });
});
