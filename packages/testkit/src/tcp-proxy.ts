import { type Server, type Socket, createConnection, createServer } from "node:net";
import { freePort } from "@mailstop/deploy";

/** A loopback TCP proxy in front of a server, for tests of an engine that stops answering. */
export interface TcpProxy {
  port: number;
  /** From now on nothing passes either way: connections stay open and silent, as with a frozen server. */
  freeze(): void;
  /** Lets bytes pass again. */
  thaw(): void;
  /** Cuts every connection, and every new one as soon as it opens, as with a server that went down. */
  sever(): void;
  /** Ends `sever`: new connections reach the server again. */
  mend(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy to 127.0.0.1:`targetPort`. A frozen proxy pauses every socket (held bytes are
 * delivered on thaw), so a client sees a server that accepts and never replies, the way a hung
 * object store or a half-dead network looks; closing the target instead would fail fast.
 */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  let severed = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    if (severed) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    // After pipe(), which starts the flow: a connection opened while frozen is frozen too.
    if (frozen) for (const socket of [client, upstream]) socket.pause();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    sever() {
      severed = true;
      for (const socket of sockets) socket.destroy();
    },
    mend() {
      severed = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
