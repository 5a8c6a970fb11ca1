import { type TestServer, keyRequest, startTestServer, uniqueRedisPrefix } from "@mailstop/testkit";
import { DEFAULTS, limitedProject } from "./rate-limits.fixture";

// Rate limits across instances: two API servers in this process sharing one Redis and one
// database draw on one bucket per key (docs/decisions.md "Rate limits"). Real engines only.

describe("rate limits across instances", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const started of servers) await started.stop();
  });

  it("limits a key together on two API servers sharing Redis: requests split between them draw on one bucket", async () => {
    const env = { ...DEFAULTS, MAILSTOP_REDIS_PREFIX: uniqueRedisPrefix() };
    servers.push(await startTestServer({ env }), await startTestServer({ env }));
    const [first, second] = servers as [TestServer, TestServer];
    const project = await limitedProject(first, { rate_limit_read: 2 });
    // One after another, alternating: each server sees two admitted, then refuses its third.
    const statuses: [string, number][] = [];
    for (let i = 0; i < 6; i++) {
      const on = i % 2 === 0 ? first : second;
      statuses.push([on === first ? "first" : "second", (await keyRequest(on.url, project.apiKey, "GET", "/v1/inboxes?limit=1")).status]);
    }
    expect(statuses).toEqual([
      ["first", 200],
      ["second", 200],
      ["first", 200],
      ["second", 200],
      ["first", 429],
      ["second", 429],
    ]);
  });
});
