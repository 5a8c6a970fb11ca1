import { type SMTPServer, type SMTPServerEnvelope, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { captureTag, secretMatchesHash } from "@mailstop/core";
import { type Admission, findSmtpCredential } from "@mailstop/db";
import type { SmtpListener } from "@mailstop/metrics";
import { acceptTransaction, copyKeyOf } from "./accept-transaction";
import { collectData } from "./collect-data";
import type { AcceptedRecipient, SmtpEdgeDeps } from "./deps";
import { PromptGreetingSMTPServer } from "./prompt-greeting";
import { OpenTransactions, SHUTDOWN_GRACE_MS } from "./open-transactions";
import { TransactionReservations } from "./reservations";
import { resolveReceivingRecipient } from "./resolve-recipient";
import { AUTH_REQUIRED_MESSAGE, REPLY, type SmtpReply, isSmtpReply } from "./smtp-reply";
import type { TlsCredentials } from "./tls";

/** Recipients accepted at RCPT, per transaction (smtp-server makes a new envelope for each). */
const accepted = new WeakMap<SMTPServerEnvelope, AcceptedRecipient[]>();

function remember(session: SMTPServerSession, recipient: AcceptedRecipient): void {
  const list = accepted.get(session.envelope) ?? [];
  list.push(recipient);
  accepted.set(session.envelope, list);
}

/**
 * Turns a promise into smtp-server's callback. A thrown SMTP reply is sent as is; anything
 * else (the database or Redis unreachable) is logged and answered with `fallback`, a 4xx: a
 * sender must retry, never bounce, and never read our internal error text.
 */
function replyWith(deps: SmtpEdgeDeps, fallback: () => SmtpReply, count: (code: number) => void = () => undefined) {
  return <T>(work: Promise<T>, callback: (error?: Error | null, value?: T) => void): void => {
    work.then(
      (value) => {
        count(250);
        callback(null, value);
      },
      (error: unknown) => {
        const reply = isSmtpReply(error) ? error : fallback();
        if (reply !== error) deps.logger.error({ err: error }, "smtp command failed unexpectedly; replied with a temporary failure");
        count(reply.responseCode);
        callback(reply);
      },
    );
  };
}

/** Counters of a listener's recipients and transactions by reply class (nothing without metrics). */
function counters(deps: SmtpEdgeDeps, listener: SmtpListener) {
  const { metrics } = deps;
  if (metrics === undefined) return { recipient: undefined, transaction: undefined };
  return { recipient: (code: number) => metrics.smtpRecipient(listener, code), transaction: (code: number) => metrics.smtpTransaction(listener, code) };
}

function baseOptions(
  deps: SmtpEdgeDeps,
  tls: TlsCredentials | null,
  name: string,
  open: OpenTransactions,
  listener: SmtpListener,
  reservations: TransactionReservations,
): ConstructorParameters<typeof PromptGreetingSMTPServer>[0] {
  return {
    name,
    // smtp-server writes "220 <name> ESMTP <banner>": the brand alone, so ESMTP is said once.
    banner: deps.config.brand,
    size: deps.config.smtp.maxMessageBytes,
    // Without credentials STARTTLS is neither offered nor accepted (see loadTlsCredentials).
    ...(tls === null ? { disabledCommands: ["STARTTLS"] } : { key: tls.key, cert: tls.cert }),
    // A test inbox needs no sender verification, and a reverse lookup per connection costs a
    // DNS round trip before the greeting.
    disableReverseLookup: true,
    logger: false,
    // The edge's own graceful stop (OpenTransactions) closes connections; this is only its backstop.
    closeTimeout: SHUTDOWN_GRACE_MS + 5000,
    // A shutting-down edge tells a new sender to retry elsewhere instead of greeting it.
    onConnect(_session, callback) {
      const refused = open.refusing ? REPLY.shuttingDown() : null;
      deps.metrics?.smtpSession(listener, refused === null ? 220 : refused.responseCode);
      callback(refused);
    },
    // A transaction reset or cut before DATA lets go of what it reserved at RCPT.
    onEnvelopeDropped: (envelope) => reservations.dropped(envelope),
    onClose: (session) => reservations.dropped(session.envelope),
  };
}

function envelopeFrom(session: SMTPServerSession): string | null {
  return session.envelope.mailFrom === false ? null : session.envelope.mailFrom.address || null;
}

/**
 * DATA on either listener: collect, make durable, then `250` naming the transaction. Its
 * reservations stay counted when it is accepted and are released when it is not.
 */
function onDataFor(
  deps: SmtpEdgeDeps,
  kind: "received" | "captured",
  open: OpenTransactions,
  reservations: TransactionReservations,
): NonNullable<SMTPServerOptions["onData"]> {
  const reply = replyWith(deps, REPLY.temporaryFailure, counters(deps, kind === "received" ? "receiving" : "capture").transaction);
  return (stream, session, callback) => {
    const envelope = session.envelope;
    const id = reservations.beginData(envelope);
    const transaction = collectData(stream).then(async (raw) => {
      const recipients = accepted.get(envelope) ?? [];
      const client = { address: session.remoteAddress || null, helo: session.hostNameAppearsAs || null };
      const transactionId = await acceptTransaction(deps, { kind, raw, envelopeFrom: envelopeFrom(session), client, recipients, id });
      return `2.0.0 Ok: ${kind === "captured" ? "captured" : "queued"} as ${transactionId}`;
    });
    void transaction.then(
      () => reservations.accepted(envelope),
      () => reservations.refused(envelope),
    );
    open.track(session.id, transaction);
    reply(transaction, callback);
  };
}

/** The receiving edge (MX): existing inboxes only, `sim.*` behaviours, no AUTH. */
export function createReceivingServer(deps: SmtpEdgeDeps, tls: TlsCredentials | null, open = new OpenTransactions()): SMTPServer {
  const reply = replyWith(deps, REPLY.temporaryLocalError, counters(deps, "receiving").recipient);
  const reservations = new TransactionReservations(deps);
  return new PromptGreetingSMTPServer({
    ...baseOptions(deps, tls, deps.config.mxHost, open, "receiving", reservations),
    disabledCommands: tls === null ? ["AUTH", "STARTTLS"] : ["AUTH"],
    onRcptTo(address, session, callback) {
      reply(
        (async () => {
          const { recipient, metered } = await resolveReceivingRecipient(deps, address.address, envelopeFrom(session) ?? "");
          if (metered) await reservations.reserve(session.envelope, recipient.projectId, copyKeyOf(recipient));
          remember(session, recipient);
        })(),
        callback,
      );
    },
    onData: onDataFor(deps, "received", open, reservations),
  });
}

interface CaptureUser {
  projectId: string;
  projectKey: string;
  /** As of AUTH, without usage: a metered project's RCPT reads it again (reservations.ts). */
  admission: Admission;
}

/** The capture relay: AUTH required, every recipient accepted and filed, nothing delivered. */
export function createCaptureServer(deps: SmtpEdgeDeps, tls: TlsCredentials | null, open = new OpenTransactions()): SMTPServer {
  const reply = replyWith(deps, REPLY.temporaryLocalError, counters(deps, "capture").recipient);
  const replyToAuth = replyWith(deps, REPLY.temporaryAuthFailure);
  const reservations = new TransactionReservations(deps);
  return new PromptGreetingSMTPServer({
    ...baseOptions(deps, tls, deps.config.captureHost, open, "capture", reservations),
    authMethods: ["PLAIN", "LOGIN"],
    authOptional: false,
    authRequiredMessage: AUTH_REQUIRED_MESSAGE,
    // Where STARTTLS is offered, the credential travels only after it; on a laptop (no
    // certificate, `local`) there is nothing to upgrade to, and AUTH is accepted in clear.
    allowInsecureAuth: tls === null,
    onAuth(auth, _session, callback) {
      replyToAuth(
        (async () => {
          const credential = auth.username ? await findSmtpCredential(deps.db, auth.username) : null;
          if (credential === null || !secretMatchesHash(auth.password ?? "", credential.passwordHash)) throw REPLY.badCredentials();
          const user: CaptureUser = { projectId: credential.projectId, projectKey: credential.projectKey, admission: credential.admission };
          return { user };
        })(),
        callback,
      );
    },
    onRcptTo(address, session, callback) {
      reply(
        (async () => {
          const user = session.user as CaptureUser;
          if (captureTag(address.address) === null) throw REPLY.badCaptureAddress();
          const recipient: AcceptedRecipient = { address: address.address, projectId: user.projectId, projectKey: user.projectKey, inboxId: null, sim: null };
          // Suspension as of AUTH (one connection per message for most senders); with a limit
          // that counts mail, the reservation reads everything again, suspension included.
          if (user.admission.suspended) throw REPLY.suspended();
          if (user.admission.metered) await reservations.reserve(session.envelope, user.projectId, copyKeyOf(recipient));
          remember(session, recipient);
        })(),
        callback,
      );
    },
    onData: onDataFor(deps, "captured", open, reservations),
  });
}
