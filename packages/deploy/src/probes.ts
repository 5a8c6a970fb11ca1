import { once } from "node:events";
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The lowest port the kernel hands out to outgoing connections and `listen(0)`; null when unknown (not Linux). */
export function ephemeralPortFloor(): number | null {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const floor = Number(low);
    return Number.isInteger(floor) ? floor : null;
  } catch {
    return null;
  }
}

/**
 * Where freePort looks first: below the ephemeral range, above the usual services and above
 * every port `fetch` refuses to connect to (the Fetch standard's "bad ports", the highest
 * 10080: a server there cannot be reached by Node's fetch, and a bench run failed so).
 */
export const SEARCH_FROM = 11_000;
/** Ports this process has handed out, never handed out twice. */
const handedOut = new Set<number>();

/** Where every process on this machine records the ports it handed out (one file per port). */
export const PORT_RESERVATIONS_DIR = join(tmpdir(), "mailstop-port-reservations");
/**
 * How long a reservation holds. Only the moments between the check and the caller's own bind
 * matter (seconds, while a server starts); after that a bound port fails the check anyway.
 */
export const PORT_RESERVATION_MS = 5 * 60_000;

/**
 * Reserves `port` for this process against every other process that calls freePort: true
 * when it was free to reserve. Processes cannot see each other's `handedOut`, and two Jest
 * workers drew the same port between one's check and its bind (a CI run failed with
 * EADDRINUSE), so the record is a file created exclusively. A reservation older than
 * PORT_RESERVATION_MS is taken over by renaming it away first, which only one taker wins.
 * No port library coordinates across processes (get-port locks within one), hence by hand.
 */
export function reservePort(port: number, dir = PORT_RESERVATIONS_DIR, now = Date.now()): boolean {
  const path = join(dir, String(port));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, String(process.pid), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return true; // nowhere to record: the bind check still holds
  }
  try {
    if (now - statSync(path).mtimeMs < PORT_RESERVATION_MS) return false;
    const moved = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    renameSync(path, moved);
    unlinkSync(moved);
    writeFileSync(path, String(process.pid), { flag: "wx" });
    return true;
  } catch {
    return false; // another process took the stale reservation over first
  }
}

/**
 * A free TCP port on the loopback interface (free when asked: bind it soon). Taken below the
 * kernel's ephemeral range when it can be: a port from `listen(0)` is in that range, where any
 * outgoing connection of any process (to PostgreSQL, Redis, another server) may take it
 * between this check and the server's own bind, and the benchmark once failed so
 * (EADDRINUSE). Below the range only another listener can: each port is reserved across
 * processes (reservePort) and tried before it is handed out.
 */
export async function freePort(): Promise<number> {
  const floor = ephemeralPortFloor();
  if (floor !== null && floor > SEARCH_FROM + 1000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = SEARCH_FROM + Math.floor(Math.random() * (floor - SEARCH_FROM));
      if (handedOut.has(port) || !reservePort(port) || !(await canListen(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const port = await listenOnce(0);
    if (port === null) throw new Error("freePort: cannot listen on 127.0.0.1");
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

async function canListen(port: number): Promise<boolean> {
  return (await listenOnce(port)) !== null;
}

/** Listens on 127.0.0.1:`port` and closes again; the port it got, or null when it is taken. */
async function listenOnce(port: number): Promise<number | null> {
  const server = createServer();
  try {
    server.listen(port, "127.0.0.1");
    await once(server, "listening");
  } catch {
    return null;
  }
  const bound = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return bound;
}

/** True when something accepts a TCP connection at host:port within `timeoutMs`. */
export function tcpAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const settle = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs);
    socket.once("connect", () => settle(true));
    socket.once("error", () => settle(false));
    socket.once("timeout", () => settle(false));
  });
}

/** True when GET `url` answers 2xx within `timeoutMs`. */
export async function httpOk(url: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Polls `condition` until it holds or `deadline` (epoch ms) passes; `abort` ends the wait early
 * with its own error (a child that exited will never become healthy).
 */
export async function waitUntil(what: string, condition: () => Promise<boolean> | boolean, deadline: number, abort?: () => Error | null): Promise<void> {
  for (;;) {
    const failure = abort?.() ?? null;
    if (failure !== null) throw failure;
    if (await condition()) return;
    if (Date.now() >= deadline) throw new Error(`${what}: not within the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
