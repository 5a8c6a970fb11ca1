import { type ExpressionBuilder, type SelectQueryBuilder, type Selectable, sql } from "kysely";
import { type Db, inTransaction } from "../database";
import type { Database, Labels } from "../tables";
import { type IdPage, newestFirst } from "./id-page";
import { queueUnusedBlobs } from "./reaper.repository";
import { lowerStoredBytes } from "./counters";

export interface Inbox {
  id: string;
  projectId: string;
  domainId: string | null;
  /** The custom domain's name, or null on the shared domain. */
  domain: string | null;
  tag: string;
  address: string;
  labels: Labels;
  retentionSeconds: number;
  createdAt: Date;
  lastMessageAt: Date | null;
  messageCount: number;
}

/** Everything that defines an inbox; its address is unique across the installation. */
export interface InboxDefinition {
  projectId: string;
  domainId: string | null;
  tag: string;
  address: string;
  labels: Labels;
  retentionSeconds: number;
}

/** Inbox selectors shared by listing and cleanup; absent ones do not constrain. */
export interface InboxFilter {
  tagPrefix?: string;
  label?: { key: string; value: string };
}

function toInbox(row: Selectable<Database["inboxes"]>): Inbox {
  return {
    id: row.id,
    projectId: row.project_id,
    domainId: row.domain_id,
    domain: row.domain_id === null ? null : row.address.slice(row.address.lastIndexOf("@") + 1),
    tag: row.tag,
    address: row.address,
    labels: row.labels,
    retentionSeconds: row.retention_seconds,
    createdAt: row.created_at,
    lastMessageAt: row.last_message_at,
    messageCount: row.message_count,
  };
}

/**
 * Returns the inbox at `definition.address`, creating it with `id` when missing. One
 * statement decides the race: concurrent callers all get the single row that won.
 * An existing inbox is returned unchanged.
 */
export async function ensureInbox(db: Db, id: string, definition: InboxDefinition): Promise<{ inbox: Inbox; created: boolean }> {
  const inserted = await db
    .insertInto("inboxes")
    .values({
      id,
      project_id: definition.projectId,
      domain_id: definition.domainId,
      tag: definition.tag,
      address: definition.address,
      labels: JSON.stringify(definition.labels),
      retention_seconds: definition.retentionSeconds,
    })
    .onConflict((oc) => oc.column("address").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { inbox: toInbox(inserted), created: true };

  const existing = await findInboxByAddress(db, definition.projectId, definition.address);
  // Addresses embed the project key or a domain only this project can claim, so a conflict
  // with another project's row cannot happen; if it ever does, fail loudly, never share.
  if (!existing) throw new Error(`inbox address ${definition.address} is held by another project`);
  return { inbox: existing, created: false };
}

export async function findInboxByAddress(db: Db, projectId: string, address: string): Promise<Inbox | null> {
  const row = await db.selectFrom("inboxes").selectAll().where("project_id", "=", projectId).where("address", "=", address.toLowerCase()).executeTakeFirst();
  return row ? toInbox(row) : null;
}

export async function findInboxById(db: Db, projectId: string, id: string): Promise<Inbox | null> {
  const row = await db.selectFrom("inboxes").selectAll().where("project_id", "=", projectId).where("id", "=", id).executeTakeFirst();
  return row ? toInbox(row) : null;
}

/** Rewrites an inbox's labels and retention (fixtures refresh their inboxes this way). */
export async function updateInboxDefinition(
  db: Db,
  projectId: string,
  id: string,
  change: { labels: Labels; retentionSeconds: number },
): Promise<Inbox | null> {
  const row = await db
    .updateTable("inboxes")
    .set({ labels: JSON.stringify(change.labels), retention_seconds: change.retentionSeconds })
    .where("project_id", "=", projectId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
  return row ? toInbox(row) : null;
}

function whereFilter<O>(query: SelectQueryBuilder<Database, "inboxes", O>, filter: InboxFilter): SelectQueryBuilder<Database, "inboxes", O> {
  let q = query;
  const { tagPrefix, label } = filter;
  if (tagPrefix !== undefined) {
    // `tag` is collated "C": the children of p are exactly the range [p || '.', p || '/').
    q = q.where((eb: ExpressionBuilder<Database, "inboxes">) =>
      eb.or([eb("tag", "=", tagPrefix), eb.and([eb("tag", ">=", `${tagPrefix}.`), eb("tag", "<", `${tagPrefix}/`)])]),
    );
  }
  if (label !== undefined) {
    q = q.where(sql<boolean>`labels @> ${JSON.stringify({ [label.key]: label.value })}::jsonb`);
  }
  return q;
}

/** One page of the project's inboxes matching `filter`, newest first. */
export async function listInboxes(db: Db, projectId: string, filter: InboxFilter, page: IdPage): Promise<Inbox[]> {
  const rows = await newestFirst(whereFilter(db.selectFrom("inboxes").selectAll().where("project_id", "=", projectId), filter), page).execute();
  return rows.map(toInbox);
}

export interface DeletedCounts {
  inboxesDeleted: number;
  messagesDeleted: number;
  /** The inboxes deleted (the audit trail names them). */
  inboxIds: string[];
}

type InboxIdQuery = SelectQueryBuilder<Database, "inboxes", { id: string }>;

/**
 * Locks the inboxes `choose` selects from the project's inboxes (waiting for, or skipping,
 * rows another transaction holds) and hard-deletes them with their messages, in one transaction. Choosing
 * and locking in one statement lets concurrent callers take disjoint sets: choosing ids first
 * and locking after made two concurrent cleanups pick the same batch, one of them reporting 0
 * while matches remained.
 */
async function deleteLockedInboxes(
  db: Db,
  projectId: string,
  choose: (query: InboxIdQuery) => InboxIdQuery,
  busy: "wait" | "skip",
): Promise<DeletedCounts> {
  return inTransaction(db, async (trx) => {
    const query = choose(trx.selectFrom("inboxes").select("id").where("project_id", "=", projectId)).forUpdate();
    const locked = await (busy === "skip" ? query.skipLocked() : query).execute();
    const ids = locked.map((row) => row.id);
    if (ids.length === 0) return { inboxesDeleted: 0, messagesDeleted: 0, inboxIds: [] };
    const messages = await trx.deleteFrom("messages").where("project_id", "=", projectId).where("inbox_id", "in", ids).returning(["raw_key", "project_id", "size", "deleted_at"]).execute();
    const inboxes = await trx.deleteFrom("inboxes").where("project_id", "=", projectId).where("id", "in", ids).executeTakeFirst();
    // Their stored bytes go with them: queued here, removed by the reaper.
    await queueUnusedBlobs(trx, messages.map((row) => row.raw_key));
    await lowerStoredBytes(trx, messages.filter((row) => row.deleted_at === null));
    return { inboxesDeleted: Number(inboxes.numDeletedRows), messagesDeleted: messages.length, inboxIds: ids };
  });
}

/**
 * Hard-deletes one inbox of the project with its messages; zero counts when it is already
 * gone. It waits for a message being stored into the inbox rather than skipping the row, which
 * would report a live inbox as not found.
 */
export async function deleteInbox(db: Db, projectId: string, id: string): Promise<DeletedCounts> {
  return deleteLockedInboxes(db, projectId, (query) => query.where("id", "=", id), "wait");
}

/** Hard-deletes these inboxes of the project with their messages (an erasure's capture inboxes, locked by its caller first). */
export async function deleteLockedInboxIds(db: Db, projectId: string, ids: readonly string[]): Promise<DeletedCounts> {
  if (ids.length === 0) return { inboxesDeleted: 0, messagesDeleted: 0, inboxIds: [] };
  return deleteLockedInboxes(db, projectId, (query) => query.where("id", "in", [...ids]).orderBy("id", "asc"), "wait");
}

/** Hard-deletes at most `limit` inboxes of the project matching `filter`, oldest first, with their messages. */
export async function deleteMatchingInboxes(db: Db, projectId: string, filter: InboxFilter, limit: number): Promise<DeletedCounts> {
  return deleteLockedInboxes(db, projectId, (query) => whereFilter(query, filter).orderBy("id", "asc").limit(limit), "skip");
}
