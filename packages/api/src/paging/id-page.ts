import { type IdKind, isId } from "@mailstop/core";
import type { IdPage } from "@mailstop/db";
import { decodeCursor, pageOf } from "./cursor";

/** The body every id-keyed list answers: a page of views, the limit it used, and the cursor of the next page. */
export interface IdListBody<V> {
  data: V[];
  limit: number;
  next_cursor: string | null;
}

/**
 * One page of a list keyed by time-ordered ids, newest first (inboxes, domains, webhooks,
 * attempts): decodes the cursor as an id of `kind` (a forged one is a 400), fetches one row
 * more than the limit to learn whether more exist, and answers the list body.
 */
export async function idListPage<T extends { id: string }, V>(
  query: { cursor?: string; limit?: number },
  kind: IdKind,
  fetch: (page: IdPage) => Promise<T[]>,
  view: (row: T) => V,
): Promise<IdListBody<V>> {
  const limit = query.limit ?? 50;
  const rows = await fetch({ beforeId: decodeCursor(query.cursor, (position) => isId(kind, position)), limit: limit + 1 });
  const page = pageOf(rows, limit, (row) => row.id);
  return { data: page.items.map(view), limit, next_cursor: page.nextCursor };
}
