import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts `server` listening on `port` at `host`: the address it listens on, once it does. */
export async function listen(server: Server, port: number, host: string): Promise<{ host: string; port: number }> {
  server.listen(port, host);
  await once(server, "listening");
  const address = server.address() as AddressInfo;
  return { host: address.address, port: address.port };
}

/**
 * Closes `server`, when it listens, and waits until it has: its idle keep-alive connections are
 * ended at once and busy ones finish their request (`idle`), or every connection is cut (`all`).
 */
export async function closeListener(server: Server | undefined, connections: "idle" | "all"): Promise<void> {
  if (!server?.listening) return;
  const closed = once(server, "close");
  server.close();
  if (connections === "idle") server.closeIdleConnections();
  else server.closeAllConnections();
  await closed;
}
