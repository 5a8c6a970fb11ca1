import { invalidRequest } from "@mailstop/openapi";

/**
 * Opaque list cursors: the position of the page's last row (an inbox id, a message's arrival
 * sequence) in base64url JSON, so its shape can change without breaking clients that only
 * pass it back.
 */
export function encodeCursor(lastPosition: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before: lastPosition }), "utf8").toString("base64url");
}

/** `isPosition` checks the position's shape, so a forged cursor is a 400, never a failing query. */
export function decodeCursor(cursor: string | undefined, isPosition: (position: string) => boolean = () => true): string | null {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; before?: unknown };
    if (parsed.v === 1 && typeof parsed.before === "string" && isPosition(parsed.before)) return parsed.before;
  } catch {
    // reported below
  }
  return invalidRequest([{ in: "query", path: "/cursor", message: "is not a cursor returned by this API" }]);
}

/** One page of `rows` fetched with limit + 1: the extra row only says that more exist. */
export function pageOf<T>(rows: T[], limit: number, positionOf: (row: T) => string): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(positionOf(items[items.length - 1]!)) };
}
