import { once } from "node:events";
import { createServer } from "node:net";
import { SEARCH_FROM, ephemeralPortFloor, freePort } from "./probes";

describe("freePort", () => {
  it("hands out distinct ports that can be bound, below the kernel's ephemeral range where there is one", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    const floor = ephemeralPortFloor();
    if (floor !== null && floor > SEARCH_FROM + 1000) {
      for (const port of ports) {
        expect(port).toBeLessThan(floor);
        expect(port).toBeGreaterThanOrEqual(SEARCH_FROM);
      }
    }
    // Above 10080, the highest of the ports fetch refuses to connect to ("bad port").
    expect(SEARCH_FROM).toBeGreaterThan(10080);
    const server = createServer().listen(ports[0], "127.0.0.1");
    await once(server, "listening");
    server.close();
  });
});
