import { type AuditAction, type AuditSource, newId } from "@mailstop/core";
import type { Selectable } from "kysely";
import { type Db, inTransaction } from "../database";
import type { AuditEventsTable } from "../tables/audit.table";

/** One change as the audit trail records it; `source` says who made it and in which request. */
export interface AuditEntry {
  projectId: string;
  source: AuditSource;
  action: AuditAction;
  target: { type: string; id: string };
  details?: Record<string, unknown>;
}

export interface AuditEvent {
  id: string;
  projectId: string;
  at: Date;
  actor: { type: "api_key" | "admin" | "system"; id: string };
  action: string;
  target: { type: string; id: string };
  requestId: string | null;
  details: Record<string, unknown>;
}

function toAuditEvent(row: Selectable<AuditEventsTable>): AuditEvent {
  return {
    id: row.id,
    projectId: row.project_id,
    at: row.at,
    actor: { type: row.actor_type, id: row.actor_id },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    requestId: row.request_id,
    details: row.details,
  };
}

/**
 * Writes one audit row in `trx`, which must be the transaction of the change it records: the
 * row then commits or rolls back with the change. `at` is taken here, to the millisecond, so
 * the listing's cursor (a JavaScript Date) compares exactly with it.
 */
export async function recordAudit(trx: Db, entry: AuditEntry): Promise<void> {
  await trx
    .insertInto("audit_events")
    .values({
      id: newId("auditEvent"),
      project_id: entry.projectId,
      at: new Date(),
      actor_type: entry.source.actor.type,
      actor_id: entry.source.actor.id,
      action: entry.action,
      target_type: entry.target.type,
      target_id: entry.target.id,
      request_id: entry.source.requestId,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

/**
 * Runs `change` and records what `entryOf` makes of its result, in one transaction (the
 * caller's, when `db` is one). `entryOf` answers null when the call changed nothing (an
 * inbox that already existed, a delete that found nothing): nothing is recorded then.
 */
export async function audited<T>(db: Db, change: (trx: Db) => Promise<T>, entryOf: (result: T) => AuditEntry | null): Promise<T> {
  return inTransaction(db, async (trx) => {
    const result = await change(trx);
    const entry = entryOf(result);
    if (entry !== null) await recordAudit(trx, entry);
    return result;
  });
}

/** Where a page of the listing starts: just after the last event of the page before. */
export interface AuditPosition {
  at: Date;
  id: string;
}

export interface AuditFilter {
  action?: string;
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
}

/** The project's audit events, newest first, keyset-paged on (at, id). */
export async function listAuditEvents(db: Db, projectId: string, filter: AuditFilter, page: { before: AuditPosition | null; limit: number }): Promise<AuditEvent[]> {
  let query = db.selectFrom("audit_events").selectAll().where("project_id", "=", projectId);
  if (filter.action !== undefined) query = query.where("action", "=", filter.action);
  if (filter.since !== undefined) query = query.where("at", ">=", filter.since);
  if (filter.until !== undefined) query = query.where("at", "<", filter.until);
  const { before } = page;
  if (before !== null) query = query.where((eb) => eb(eb.refTuple("at", "id"), "<", eb.tuple(before.at, before.id)));
  const rows = await query.orderBy("at", "desc").orderBy("id", "desc").limit(page.limit).execute();
  return rows.map(toAuditEvent);
}
