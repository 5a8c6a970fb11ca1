import { type Selectable, sql } from "kysely";
import type { Db } from "../database";
import { compiledOnce } from "../compiled-once";
import type { LedgerDelivery } from "../tables";
import type { AcceptedTransactionsTable } from "../tables/ledger.table";

/** An SMTP transaction the edge is about to answer 250: what its parse job needs, but the raw bytes. */
export interface AcceptedTransaction {
  id: string;
  kind: "received" | "captured";
  size: number;
  envelopeFrom: string | null;
  /** The connection it came over, for the parser's authentication checks (null when unknown). */
  clientAddress?: string | null | undefined;
  clientHelo?: string | null | undefined;
  acceptedAt: Date;
  deliveries: LedgerDelivery[];
}

/**
 * The ledger's one insert for any number of transactions: the rows travel as one jsonb
 * parameter, so the text never changes and runs as a prepared statement (compiledOnce), and
 * transactions accepted together share one round trip and one commit (see LedgerWriter).
 */
const insertStatement = compiledOnce(1, (db: Db, rows: string) => {
  const statement = sql`
    insert into accepted_transactions (id, kind, size, envelope_from, client_address, client_helo, deliveries, accepted_at)
    select r.id, r.kind, r.size, r.envelope_from, r.client_address, r.client_helo, r.deliveries, r.accepted_at
    from jsonb_to_recordset(${rows}::jsonb) as r(id text, kind text, size int, envelope_from text, client_address text, client_helo text, deliveries jsonb, accepted_at timestamptz)
    on conflict (id) do nothing`;
  return { compile: () => statement.compile(db) };
});

/** Records accepted transactions durably (the commit is the promise behind their 250). Idempotent on id. */
export async function recordAcceptedTransactions(db: Db, transactions: readonly AcceptedTransaction[]): Promise<void> {
  if (transactions.length === 0) return;
  await insertStatement(
    db,
    JSON.stringify(
      transactions.map((t) => ({
        id: t.id,
        kind: t.kind,
        size: t.size,
        envelope_from: t.envelopeFrom,
        client_address: t.clientAddress ?? null,
        client_helo: t.clientHelo ?? null,
        deliveries: t.deliveries, accepted_at: t.acceptedAt.toISOString() })),
    ),
  );
}

/** Marks transactions done outside a store (nothing was left to store, e.g. their raw source was erased). */
export async function markTransactionsDone(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("accepted_transactions")
    .set({ state: "done", done_at: sql<Date>`now()` })
    .where("id", "in", [...ids])
    .where("state", "=", "open")
    .execute();
}

/** A row requeued again and again waits at most 2^10 grace periods (17 h at 60 s) between requeues. */
const MAX_BACKOFF_DOUBLINGS = 10;

/**
 * When an open ledger row turns stale: `graceSeconds` after it was accepted, and, once claimed,
 * `graceSeconds × 2^(claims − 1)` (capped) after its last claim. The reconciler claims by it
 * and sleeps until its earliest, so the two can never disagree.
 */
const staleAt = (graceSeconds: number) => sql<Date>`greatest(
  accepted_at + make_interval(secs => ${graceSeconds}),
  requeued_at + make_interval(secs => ${graceSeconds} * power(2, least(requeues - 1, ${MAX_BACKOFF_DOUBLINGS}))))`;

/**
 * Claims up to `limit` open transactions that have waited longer than `graceSeconds` since
 * they were accepted, oldest first, counting the claim: the reconciler's work. A row claimed
 * before waits `graceSeconds × 2^(claims − 1)` since its last claim (capped), so a transaction
 * whose parse keeps failing for good is retried ever less often but never given up. Rows
 * another reconciler is claiming are skipped, so parser instances running it at once never
 * queue the same transaction twice in one round.
 */
export async function claimStaleTransactions(db: Db, graceSeconds: number, limit: number): Promise<AcceptedTransaction[]> {
  const { rows } = await sql<ClaimedRow>`
    update accepted_transactions set requeues = requeues + 1, requeued_at = now()
    where id in (
      select id from accepted_transactions
      -- The first bound follows from the second; it lets the open rows' index (accepted_at) stop the scan.
      where state = 'open' and accepted_at < now() - make_interval(secs => ${graceSeconds}) and ${staleAt(graceSeconds)} <= now()
      order by accepted_at
      limit ${limit}
      for update skip locked)
    returning id, kind, size, envelope_from, client_address, client_helo, deliveries, accepted_at`.execute(db);
  return rows.map(toAcceptedTransaction);
}

/**
 * In how many milliseconds the next open transaction turns stale, as claimStaleTransactions
 * reckons it (its grace after acceptance, and its back-off after a claim), or null when none
 * is open: how long the reconciler may sleep. Negative when one is stale already.
 */
export async function msUntilNextStaleTransaction(db: Db, graceSeconds: number): Promise<number | null> {
  const { rows } = await sql<{ ms: number | string | null }>`
    select extract(epoch from min(${staleAt(graceSeconds)}) - now()) * 1000 as ms
    from accepted_transactions where state = 'open'`.execute(db);
  const ms = rows[0]?.ms;
  return ms == null ? null : Math.ceil(Number(ms));
}

/**
 * Claims up to `limit` open transactions accepted before `startedAt` and not claimed since,
 * oldest first, counting the claim: what a crash left open, for a process that is its
 * database's only one (the embedded monolith at its start). Each row is claimed once per start:
 * its claim time is then after `startedAt`.
 */
export async function claimOrphanedTransactions(db: Db, startedAt: Date, limit: number): Promise<AcceptedTransaction[]> {
  const { rows } = await sql<ClaimedRow>`
    update accepted_transactions set requeues = requeues + 1, requeued_at = now()
    where id in (
      select id from accepted_transactions
      where state = 'open' and accepted_at < ${startedAt} and (requeued_at is null or requeued_at < ${startedAt})
      order by accepted_at
      limit ${limit}
      for update skip locked)
    returning id, kind, size, envelope_from, client_address, client_helo, deliveries, accepted_at`.execute(db);
  return rows.map(toAcceptedTransaction);
}

/** What a claim returns of a ledger row: every column its parse job needs. */
type ClaimedRow = Pick<Selectable<AcceptedTransactionsTable>, "id" | "kind" | "size" | "envelope_from" | "client_address" | "client_helo" | "deliveries" | "accepted_at">;

function toAcceptedTransaction(row: ClaimedRow): AcceptedTransaction {
  return {
    id: row.id,
    kind: row.kind,
    size: row.size,
    envelopeFrom: row.envelope_from,
    // Only when known: rows from before they were recorded read as they always did.
    ...(row.client_address === null ? {} : { clientAddress: row.client_address }),
    ...(row.client_helo === null ? {} : { clientHelo: row.client_helo }),
    acceptedAt: new Date(row.accepted_at),
    deliveries: typeof row.deliveries === "string" ? JSON.parse(row.deliveries) : row.deliveries,
  };
}

/** The state of one transaction's ledger row, or null when it has none (tests and diagnostics). */
export async function ledgerState(db: Db, id: string): Promise<{ state: "open" | "done"; requeues: number } | null> {
  const row = await db.selectFrom("accepted_transactions").select(["state", "requeues"]).where("id", "=", id).executeTakeFirst();
  return row ?? null;
}

/** Deletes done rows older than `doneBefore`, at most `limit`; returns how many went. */
export async function pruneDoneTransactions(db: Db, doneBefore: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from accepted_transactions where id in (
      select id from accepted_transactions where state = 'done' and done_at < ${doneBefore} order by done_at limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Which of these transaction ids the database still knows: an open or done ledger row, or a
 * message stored from it (its raw key is `…/tx/<id>/raw.eml`). The orphan sweep deletes the
 * raw objects of the others.
 */
export async function knownTransactions(db: Db, candidates: readonly { id: string; rawKey: string }[]): Promise<Set<string>> {
  if (candidates.length === 0) return new Set();
  const ids = candidates.map((c) => c.id);
  const keys = candidates.map((c) => c.rawKey);
  const rows = await sql<{ id: string }>`
    select c.id from unnest(${ids}::text[], ${keys}::text[]) as c(id, raw_key)
    where exists (select 1 from accepted_transactions t where t.id = c.id)
       or exists (select 1 from messages m where m.raw_key = c.raw_key)`.execute(db);
  return new Set(rows.rows.map((row) => row.id));
}
