import { type SelectQueryBuilder, sql } from "kysely";

/** A page of rows keyed by a time-ordered id, newest first: those before `beforeId` (all when null), at most `limit`. */
export interface IdPage {
  beforeId: string | null;
  limit: number;
}

/**
 * Pages a query of one table whose `id` is a time-ordered ULID, newest first. Keyset paging:
 * `id < beforeId` never skips or repeats a row when others are inserted between pages, as an
 * offset would.
 */
export function newestFirst<QB extends SelectQueryBuilder<any, any, any>>(query: QB, page: IdPage): QB {
  const before = page.beforeId === null ? query : query.where(sql.ref("id"), "<", page.beforeId);
  return before.orderBy(sql.ref("id"), "desc").limit(page.limit) as QB;
}
