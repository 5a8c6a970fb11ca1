import { invalidRequest } from "@mailstop/openapi";

/**
 * Opaque list cursors: the position (last id of the page) in base64url JSON, so its shape can
 * change without breaking clients that only pass it back.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before: lastId }), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; before?: unknown };
    if (parsed.v === 1 && typeof parsed.before === "string") return parsed.before;
  } catch {
    // reported below
  }
  return invalidRequest([{ in: "query", path: "/cursor", message: "is not a cursor returned by this API" }]);
}

/** One page of `rows` fetched with limit + 1: the extra row only says that more exist. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(items[items.length - 1]!.id) };
}
