import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { SMTPServer } from "smtp-server";
import type { SmtpEdgeDeps } from "./deps";
import { createCaptureServer, createReceivingServer } from "./listeners";
import { OpenTransactions } from "./open-transactions";
import { loadTlsCredentials } from "./tls";

export interface SmtpEdge {
  start(): Promise<void>;
  /** Begins the shutdown: new connections and idle ones get `421`; transactions in DATA go on until `stop`. */
  drain(): void;
  stop(): Promise<void>;
  /** The ports actually bound (useful when configured as 0). */
  ports(): { receiving: number; capture: number };
}

/** Both listeners of the smtp-edge service. */
export function createSmtpEdge(deps: SmtpEdgeDeps, ports: { receiving: number; capture: number } = { receiving: deps.config.smtp.port, capture: deps.config.smtp.capturePort }): SmtpEdge {
  let servers: { receiving: SMTPServer; capture: SMTPServer } | undefined;
  const open = new OpenTransactions();
  const bound = { receiving: 0, capture: 0 };

  async function listen(server: SMTPServer, port: number): Promise<number> {
    server.listen(port, deps.config.host);
    await once(server.server, "listening");
    return (server.server.address() as AddressInfo).port;
  }

  return {
    async start() {
      const tls = await loadTlsCredentials(deps.config.smtp.tls, deps.config.environment, [deps.config.mxHost, deps.config.captureHost]);
      servers = { receiving: createReceivingServer(deps, tls, open), capture: createCaptureServer(deps, tls, open) };
      for (const server of Object.values(servers)) server.on("error", (error) => deps.logger.error({ err: error }, "smtp listener error"));
      bound.receiving = await listen(servers.receiving, ports.receiving);
      bound.capture = await listen(servers.capture, ports.capture);
      deps.logger.info({ receiving: bound.receiving, capture: bound.capture }, "smtp listening");
    },
    drain() {
      if (servers) open.drain(Object.values(servers));
    },
    /** Stops accepting, lets transactions in DATA finish (their senders get 250 or 451), closes the rest with 421. */
    async stop() {
      if (!servers) return;
      const stopping = Object.values(servers);
      servers = undefined;
      await open.closeGracefully(stopping);
    },
    ports: () => ({ ...bound }),
  };
}
