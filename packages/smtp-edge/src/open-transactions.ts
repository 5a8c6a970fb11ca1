import type { SMTPServer } from "smtp-server";
import { REPLY } from "./smtp-reply";

/** How long a stopping edge lets transactions already in DATA finish before it closes them. */
export const SHUTDOWN_GRACE_MS = 30_000;

/** What smtp-server keeps of a connection; its `connections` set is not in its typings. */
interface OpenConnection {
  id: string;
  send(code: number, text: string): void;
  close(): void;
}

const connectionsOf = (server: SMTPServer) => [...((server as unknown as { connections: Set<OpenConnection> }).connections ?? [])];

/**
 * The SMTP transactions between DATA and their reply, by session id. A stopping edge waits for
 * them (their sender gets its 250 or 451) and closes every other connection at once with
 * `421`, so a restart neither cuts an accepted message nor waits on idle pooled connections.
 * From the moment the process begins to shut down (`drain`) a new connection is told `421`
 * instead of greeted: a sender greeted then would begin a transaction the stop cuts.
 */
export class OpenTransactions {
  private readonly open = new Map<string, Promise<unknown>>();
  private readonly servers = new Set<SMTPServer>();
  private draining = false;

  /** True once the edge is shutting down: new connections are refused with `421`. */
  get refusing(): boolean {
    return this.draining;
  }

  track(sessionId: string, transaction: Promise<unknown>): void {
    const settled = transaction.then(
      () => undefined,
      () => undefined,
    );
    this.open.set(sessionId, settled);
    void settled.then(() => {
      if (this.open.get(sessionId) === settled) this.open.delete(sessionId);
    });
  }

  /**
   * Begins the shutdown of `servers`: every new connection gets `421` and is closed, and the
   * connections outside a transaction are closed with `421` now. Transactions in DATA go on.
   */
  drain(servers: readonly SMTPServer[]): void {
    this.draining = true;
    for (const server of servers) this.servers.add(server);
    this.idleCut();
  }

  /**
   * Stops `servers` gracefully: connections outside a transaction get `421` now, and so does
   * every new one; transactions in flight finish within `graceMs`, then what is left is
   * closed and the listeners stop. They listen until then, so a sender arriving during the
   * grace hears `421` (retry later) rather than a refused connection.
   */
  async closeGracefully(servers: readonly SMTPServer[], graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
    this.drain(servers);
    const deadline = Date.now() + graceMs;
    while (this.open.size > 0 && Date.now() < deadline) {
      await Promise.race([Promise.all(this.open.values()), new Promise((resolve) => setTimeout(resolve, deadline - Date.now()).unref())]);
      // A finished transaction's connection may begin another; it is told to go elsewhere.
      this.idleCut();
    }
    const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const server of servers) for (const connection of connectionsOf(server)) shut(connection);
    await Promise.all(closed);
  }

  private idleCut(): void {
    for (const server of this.servers) for (const connection of connectionsOf(server)) if (!this.open.has(connection.id)) shut(connection);
  }
}

function shut(connection: OpenConnection): void {
  const reply = REPLY.shuttingDown();
  connection.send(reply.responseCode, reply.message);
  connection.close();
}
