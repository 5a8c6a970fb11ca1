import type { SMTPServerEnvelope } from "smtp-server";
import { newTransactionId, periodStart } from "@mailstop/core";
import { releaseReservations, reserveRecipient, settleReservations } from "@mailstop/db";
import type { SmtpEdgeDeps } from "./deps";
import { replyToRefusal } from "./admission";
import { REPLY } from "./smtp-reply";

/** What one SMTP transaction reserved at RCPT for its metered projects. */
interface Held {
  /** The id its accept-ledger row will have: the reservations are filed under it. */
  transactionId: string;
  /** The projects it holds reservations of. */
  projects: Set<string>;
  /** The copies already counted: a recipient named twice is stored (and counted) once. */
  copies: Set<string>;
  /** `data` from the moment DATA begins: its outcome releases or keeps the reservations. */
  state: "rcpt" | "data" | "accepted";
  /** The reservation in flight, which a release waits for (it could otherwise land after it). */
  inFlight: Promise<unknown>;
}

/**
 * The reservations of one listener's open transactions (docs/decisions.md "Limits that count
 * what they admit"). A recipient of a metered project (an ingest ceiling, or organisation
 * limits on) is counted the moment RCPT accepts it, in the database every edge shares
 * (reserveRecipient), so concurrent transactions on any number of edges never store past the
 * limit. A transaction that ends without a `250` (reset, refused at DATA, connection gone)
 * releases its reservations; an accepted one keeps them until the parser has stored it (its
 * ledger row is then done and the usage counters count it). Unmetered recipients cost nothing
 * here.
 */
export class TransactionReservations {
  private readonly held = new WeakMap<SMTPServerEnvelope, Held>();

  constructor(private readonly deps: SmtpEdgeDeps) {}

  /**
   * Counts one recipient against its project's limits, or throws the reply that refuses it
   * (`452 4.3.1`, or `550 5.7.1` for an organisation suspended since the lookup).
   */
  async reserve(envelope: SMTPServerEnvelope, projectId: string, copyKey: string): Promise<void> {
    let held = this.held.get(envelope);
    if (held === undefined) {
      held = { transactionId: newTransactionId(), projects: new Set(), copies: new Set(), state: "rcpt", inFlight: Promise.resolve() };
      this.held.set(envelope, held);
    }
    if (held.copies.has(copyKey)) return;
    const reservation = reserveRecipient(this.deps.db, { transactionId: held.transactionId, projectId }, periodStart(new Date()));
    // A release waits for it: it settles after the lines below have recorded what it reserved.
    held.inFlight = reservation.catch(() => undefined);
    const outcome = await reservation;
    if (!outcome.reserved) throw outcome.refusal === null ? REPLY.unknownRecipient() : replyToRefusal(outcome.refusal);
    held.projects.add(projectId);
    held.copies.add(copyKey);
  }

  /** The id the transaction's reservations are filed under, which its ledger row must have; undefined when it reserved nothing. */
  beginData(envelope: SMTPServerEnvelope): string | undefined {
    const held = this.held.get(envelope);
    if (held === undefined) return undefined;
    held.state = "data";
    return held.transactionId;
  }

  /**
   * The transaction was answered `250`: its reservations count through its ledger row until
   * the parser has stored it. Not awaited: until settled they count by their expiry instead.
   */
  accepted(envelope: SMTPServerEnvelope): void {
    const held = this.held.get(envelope);
    if (held === undefined) return;
    held.state = "accepted";
    void settleReservations(this.deps.db, held.transactionId, [...held.projects]).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, transaction_id: held.transactionId }, "reservations of an accepted transaction not settled; they expire");
    });
  }

  /** DATA ended without a `250`: what the transaction reserved is released. */
  refused(envelope: SMTPServerEnvelope): void {
    const held = this.held.get(envelope);
    if (held !== undefined && held.state !== "accepted") this.release(envelope, held);
  }

  /**
   * The transaction's envelope was dropped (RSET, a new EHLO, the connection closed) outside
   * DATA: what it reserved is released. A transaction in DATA is left to its outcome.
   */
  dropped(envelope: SMTPServerEnvelope): void {
    const held = this.held.get(envelope);
    if (held !== undefined && held.state === "rcpt") this.release(envelope, held);
  }

  private release(envelope: SMTPServerEnvelope, held: Held): void {
    this.held.delete(envelope);
    void held.inFlight
      .then(() => releaseReservations(this.deps.db, held.transactionId, [...held.projects]))
      .catch((error: unknown) => {
        // Not fatal: a reservation without a ledger row stops counting when it expires.
        this.deps.logger.warn({ err: error, transaction_id: held.transactionId }, "reservations of a transaction not released; they expire");
      });
  }
}
