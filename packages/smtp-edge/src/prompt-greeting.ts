import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { SMTPServer } from "smtp-server";
import { SMTPConnection, type SMTPConnectionOptions } from "smtp-server/lib/smtp-connection.js";

/**
 * smtp-server with the 220 greeting sent as soon as the connection is set up.
 *
 * Stock smtp-server (3.21) holds every new connection for a hard-coded 100 ms before it greets,
 * to catch clients that talk before the greeting; the option to turn it off does not exist.
 * For a test inbox that delay is the whole cost of a one-connection-per-message send
 * (nodemailer's default), and the early-talker check guards nothing here: every recipient is
 * still resolved and every message is still accepted only after DATA. So the connection is
 * made ready straight away; the rest (connection limit, TLS, onConnect) is smtp-server's own.
 */
export class PromptGreetingSMTPServer extends SMTPServer {
  override connect(socket: Socket | TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new SMTPConnection(this, socket, socketOptions);
    this.connections.add(connection);
    connection.on("error", (error: Error) => this._onError(error));
    connection.on("connect", (data) => this._onClientConnect(data));
    // SMTPConnection.init() without its setTimeout(…, 100) before connectionReady().
    connection._setListeners(() => {
      if (this.options.maxClients && this.connections.size > this.options.maxClients) {
        connection.send(421, `${connection.name} Too many connected clients, try again in a moment`, false);
        return;
      }
      connection.connectionReady();
    });
  }
}
