import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { SMTPServer } from "smtp-server";
import type { SmtpEdgeDeps } from "./deps";
import { createCaptureServer, createReceivingServer } from "./listeners";
import { loadTlsCredentials } from "./tls";

export interface SmtpEdge {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The ports actually bound (useful when configured as 0). */
  ports(): { receiving: number; capture: number };
}

/** Both listeners of the smtp-edge service. */
export function createSmtpEdge(deps: SmtpEdgeDeps, ports: { receiving: number; capture: number } = { receiving: deps.config.smtp.port, capture: deps.config.smtp.capturePort }): SmtpEdge {
  let servers: { receiving: SMTPServer; capture: SMTPServer } | undefined;
  const bound = { receiving: 0, capture: 0 };

  async function listen(server: SMTPServer, port: number): Promise<number> {
    server.listen(port, deps.config.host);
    await once(server.server, "listening");
    return (server.server.address() as AddressInfo).port;
  }

  return {
    async start() {
      const tls = await loadTlsCredentials(deps.config.smtp.tls, [deps.config.mxHost, deps.config.captureHost]);
      servers = { receiving: createReceivingServer(deps, tls), capture: createCaptureServer(deps, tls) };
      for (const server of Object.values(servers)) server.on("error", (error) => deps.logger.error({ err: error }, "smtp listener error"));
      bound.receiving = await listen(servers.receiving, ports.receiving);
      bound.capture = await listen(servers.capture, ports.capture);
      deps.logger.info({ receiving: bound.receiving, capture: bound.capture }, "smtp listening");
    },
    async stop() {
      if (!servers) return;
      await Promise.all(Object.values(servers).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      servers = undefined;
    },
    ports: () => ({ ...bound }),
  };
}
