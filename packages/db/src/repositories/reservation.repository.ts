import { sql } from "kysely";
import type { Db } from "../database";
import { type Admission, type Refusal, admissionColumns, refusalOf, toAdmission } from "./admission.repository";

/**
 * How long a reservation counts while its transaction has no accept-ledger row: the bound on
 * what an edge killed mid-transaction holds back. An open transaction is never idle that long
 * (smtp-server closes a connection silent for 60 s), so only a transaction that takes longer
 * than this from its first RCPT to the end of its DATA can lose its reservation.
 */
export const RESERVATION_TTL_SECONDS = 600;

/** Which transaction reserves, for which project: the transaction id its accept-ledger row will have. */
export interface ReservationKey {
  transactionId: string;
  projectId: string;
}

/** The outcome of one reservation: reserved, or refused and why (null: the project is gone). */
export type ReservationOutcome = { reserved: true } | { reserved: false; refusal: Refusal | null };

/**
 * A reservation counts while its transaction's ledger row is open (accepted, not yet stored:
 * the parser marks it done in the transaction that moves `usage_counters`), or while it has
 * none yet and has not expired. Rows of other transactions matching neither are dead.
 */
const LIVE = sql<boolean>`(t.state = 'open' or (t.id is null and r.expires_at > now()))`;

/** {@link LIVE}'s negation on a reservation row alone: its ledger row done, or none and expired. */
const DEAD = sql<boolean>`(not exists (select 1 from accepted_transactions t where t.id = ingest_reservations.transaction_id and t.state = 'open')
  and (ingest_reservations.expires_at <= now() or exists (select 1 from accepted_transactions t where t.id = ingest_reservations.transaction_id)))`;

/**
 * Reserves one recipient of `key.projectId` for its transaction when the project's limits
 * admit it: stored mail of the period plus every live reservation of the project (ingest
 * ceiling) or of its organisation (organisation `monthly_messages`, with organisation limits
 * on) stays within the limit, as checked by {@link refusalOf}. The organisation's row is
 * locked for the decision, so instances reserving for it at once (any edge, any process on
 * the database) decide one after the other, each counting what the previous one reserved.
 * Stored bytes cannot be reserved (a message's size is unknown at RCPT): the organisation's
 * `storage_bytes` is checked against what is stored. Dead rows of the organisation are
 * deleted on the way.
 */
export async function reserveRecipient(db: Db, key: ReservationKey, period: string, ttlSeconds = RESERVATION_TTL_SECONDS): Promise<ReservationOutcome> {
  return db.transaction().execute(async (trx) => {
    // No wait for the commit's flush: the reservation promises nothing by itself. The
    // transaction's ledger row, written with a flush before its 250, flushes this earlier WAL
    // with it; a database crash before then loses the reservation and fails that transaction
    // too. Without it, every metered RCPT of an organisation waited on an fsync under its lock.
    await sql`set local synchronous_commit = off`.execute(trx);
    // Its own statement: a statement that waited for a lock still reads the snapshot it began
    // with, so the count below must begin after the lock is held.
    const locked = await trx
      .selectFrom("projects as p")
      .innerJoin("organisations as o", "o.id", "p.organisation_id")
      .select(["o.id", "o.organisation_limits"])
      .where("p.id", "=", key.projectId)
      .forNoKeyUpdate("o")
      .executeTakeFirst();
    if (locked === undefined) return { reserved: false, refusal: null };
    const row = await trx
      .with("live", (db) =>
        db
          .selectFrom("ingest_reservations as r")
          .leftJoin("accepted_transactions as t", "t.id", "r.transaction_id")
          .select(["r.project_id", "r.recipients"])
          .where("r.organisation_id", "=", locked.id)
          .$if(!locked.organisation_limits, (qb) => qb.where("r.project_id", "=", key.projectId))
          .where(LIVE),
      )
      .with("pruned", (db) =>
        db
          .deleteFrom("ingest_reservations")
          .where("organisation_id", "=", locked.id)
          .where("transaction_id", "<>", key.transactionId)
          .where(DEAD)
          .returning("transaction_id"),
      )
      .selectFrom("projects as p")
      .innerJoin("organisations as o", "o.id", "p.organisation_id")
      .select(admissionColumns(period))
      .select([
        sql<string>`(select coalesce(sum(l.recipients), 0) from live l where l.project_id = p.id)`.as("project_reserved"),
        sql<string>`(select coalesce(sum(l.recipients), 0) from live l)`.as("organisation_reserved"),
      ])
      .where("p.id", "=", key.projectId)
      .executeTakeFirst();
    if (row === undefined) return { reserved: false, refusal: null };
    const refusal = refusalOf(withReserved(toAdmission(row), Number(row.project_reserved), Number(row.organisation_reserved)));
    if (refusal !== null) return { reserved: false, refusal };
    await trx
      .insertInto("ingest_reservations")
      .values({
        transaction_id: key.transactionId,
        project_id: key.projectId,
        organisation_id: locked.id,
        recipients: 1,
        expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})`,
      })
      .onConflict((oc) =>
        oc.columns(["transaction_id", "project_id"]).doUpdateSet({ recipients: sql<number>`ingest_reservations.recipients + 1`, expires_at: (eb) => eb.ref("excluded.expires_at") }),
      )
      .execute();
    return { reserved: true };
  });
}

/** The admission with the live reservations counted as if stored. */
function withReserved(admission: Admission, projectReserved: number, organisationReserved: number): Admission {
  const { organisation } = admission.limits;
  return {
    ...admission,
    ingested: admission.ingested === null ? null : admission.ingested + projectReserved,
    limits: {
      ...admission.limits,
      organisation: { ...organisation, messagesUsed: organisation.messagesUsed === null ? null : organisation.messagesUsed + organisationReserved },
    },
  };
}

/**
 * Releases what a transaction reserved for these projects: it ended without a `250` (reset,
 * refused at DATA, its connection gone). Never called for an accepted transaction: its rows
 * count until the parser has stored it.
 */
export async function releaseReservations(db: Db, transactionId: string, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  await db.deleteFrom("ingest_reservations").where("transaction_id", "=", transactionId).where("project_id", "in", [...projectIds]).execute();
}

/**
 * An accepted transaction's reservations count through its ledger row from now on: their
 * expiry is brought to now, so that once the ledger row is done and pruned (after
 * `MAILSTOP_ORPHAN_SWEEP_AGE_S`, which may be shorter than the expiry) they cannot count again.
 */
export async function settleReservations(db: Db, transactionId: string, projectIds: readonly string[]): Promise<void> {
  if (projectIds.length === 0) return;
  await db
    .updateTable("ingest_reservations")
    .set({ expires_at: sql<Date>`now()` })
    .where("transaction_id", "=", transactionId)
    .where("project_id", "in", [...projectIds])
    .execute();
}

/** A transaction's reserved recipients per project (tests and diagnostics). */
export async function reservedRecipients(db: Db, transactionId: string): Promise<Record<string, number>> {
  const rows = await db.selectFrom("ingest_reservations").select(["project_id", "recipients"]).where("transaction_id", "=", transactionId).execute();
  return Object.fromEntries(rows.map((row) => [row.project_id, row.recipients]));
}
