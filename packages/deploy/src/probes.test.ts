import { once } from "node:events";
import { createServer } from "node:net";
import { ephemeralPortFloor, freePort } from "./probes";

describe("freePort", () => {
  it("hands out distinct ports that can be bound, below the kernel's ephemeral range where there is one", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    const floor = ephemeralPortFloor();
    if (floor !== null && floor > 11_000) for (const port of ports) expect(port).toBeLessThan(floor);
    const server = createServer().listen(ports[0], "127.0.0.1");
    await once(server, "listening");
    server.close();
  });
});
