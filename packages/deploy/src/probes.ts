import { once } from "node:events";
import { createConnection, createServer } from "node:net";

/** A free TCP port on the loopback interface (free when asked: bind it soon). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
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
