import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LINK_CHECK_CONCURRENCY, checkLinks, linkGuard } from "./link-check";

// The link check's concurrency against a real loopback server whose links never answer, with a
// short per-link deadline (the route's own 5 s is in check-message-links.route.int.test.ts,
// which runs in every world; this rule is the checker's alone and needs no mailstop).
describe("checkLinks", () => {
  let hanging = 0;
  let mostHanging = 0;
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      mostHanging = Math.max(mostHanging, ++hanging);
      res.on("close", () => hanging--);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it(`asks at most ${LINK_CHECK_CONCURRENCY} links at a time, the next once a slot is free`, async () => {
    const guard = linkGuard({ environment: "local", allowNetworks: ["127.0.0.1/32"], dnsServers: null });
    const links = [1, 2, 3, 4, 5].map((n) => `${origin}/hang/${n}`);
    const started = performance.now();
    const outcome = await checkLinks(links, guard, { timeoutMs: 400 });
    const took = performance.now() - started;
    expect(outcome.status).toBe("broken");
    expect(outcome.results.map((result) => result.error)).toEqual(["timeout", "timeout", "timeout", "timeout", "timeout"]);
    expect(mostHanging).toBe(LINK_CHECK_CONCURRENCY);
    // The fifth waited for a slot: two rounds of the deadline.
    expect(took).toBeGreaterThanOrEqual(790);
  });
});
