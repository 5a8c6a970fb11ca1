import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { SMTPServer, type SMTPServerEnvelope, type SMTPServerOptions } from "smtp-server";
import { SMTPConnection, type SMTPConnectionOptions } from "smtp-server/lib/smtp-connection.js";

/** Told when a connection drops a transaction's envelope (RSET, EHLO or HELO, STARTTLS, DATA's reply). */
export type EnvelopeDropped = (envelope: SMTPServerEnvelope) => void;

/**
 * An smtp-server connection that says when it drops a transaction's envelope: smtp-server has
 * no hook for a reset, and a transaction reset without DATA must let go of what it reserved
 * at RCPT at once (see reservations.ts).
 */
class ResetAwareConnection extends SMTPConnection {
  dropped: EnvelopeDropped | undefined;

  override _resetSession(): void {
    const previous = (this.session as Partial<SMTPConnection["session"]>).envelope;
    super._resetSession();
    if (previous !== undefined && previous !== this.session.envelope) this.dropped?.(previous);
  }
}

/**
 * smtp-server with the 220 greeting sent as soon as the connection is set up, and a hook for
 * dropped envelopes (`onEnvelopeDropped`).
 *
 * Stock smtp-server (3.21) holds every new connection for a hard-coded 100 ms before it greets,
 * to catch clients that talk before the greeting; the option to turn it off does not exist.
 * For a test inbox that delay is the whole cost of a one-connection-per-message send
 * (nodemailer's default), and the early-talker check guards nothing here: every recipient is
 * still resolved and every message is still accepted only after DATA. So the connection is
 * made ready straight away; the rest (connection limit, TLS, onConnect) is smtp-server's own.
 */
export class PromptGreetingSMTPServer extends SMTPServer {
  private readonly onEnvelopeDropped: EnvelopeDropped | undefined;

  constructor(options: SMTPServerOptions & { onEnvelopeDropped?: EnvelopeDropped }) {
    const { onEnvelopeDropped, ...rest } = options;
    super(rest);
    this.onEnvelopeDropped = onEnvelopeDropped;
  }

  override connect(socket: Socket | TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new ResetAwareConnection(this, socket, socketOptions);
    connection.dropped = this.onEnvelopeDropped;
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
