import { once } from "node:events";
import { readFileSync, utimesSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { useTempDir } from "@mailstop/testkit/src/temp-dir";
import { PORT_RESERVATIONS_DIR, PORT_RESERVATION_MS, SEARCH_FROM, ephemeralPortFloor, freePort, reservePort } from "./probes";

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

describe("reservePort", () => {
  const dir = useTempDir("reservations");

  it("reserves a port once: a second taker (another process, reading the same record) is refused", () => {
    expect(reservePort(20_001, dir())).toBe(true);
    expect(readFileSync(join(dir(), "20001"), "utf8")).toBe(String(process.pid));
    expect(reservePort(20_001, dir())).toBe(false);
    expect(reservePort(20_002, dir())).toBe(true);
  });

  it("lets a reservation older than the hold be taken over, then holds it again", () => {
    expect(reservePort(20_003, dir())).toBe(true);
    const past = (Date.now() - PORT_RESERVATION_MS - 1000) / 1000;
    utimesSync(join(dir(), "20003"), past, past);
    expect(reservePort(20_003, dir())).toBe(true);
    expect(reservePort(20_003, dir())).toBe(false);
  });

  it("is what freePort records for every port it hands out", async () => {
    const port = await freePort();
    expect(reservePort(port)).toBe(false);
    expect(readFileSync(join(PORT_RESERVATIONS_DIR, String(port)), "utf8")).toBe(String(process.pid));
  });
});
