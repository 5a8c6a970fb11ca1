/**
 * Event stream cursors: a message's `stream_seq` (the order it became visible in its inbox),
 * wrapped as base64url JSON like the list cursors, so its shape can change without breaking
 * clients that only pass it back.
 */
export function encodeStreamCursor(streamSeq: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after: streamSeq }), "utf8").toString("base64url");
}

const SEQ = /^[0-9]{1,18}$/;

/** The stream_seq a cursor names, or null when the value is absent or malformed (a fresh stream). */
export function decodeStreamCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === "") return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { v?: unknown; after?: unknown };
    if (parsed.v === 1 && typeof parsed.after === "string" && SEQ.test(parsed.after)) return parsed.after;
  } catch {
    // malformed: a fresh stream
  }
  return null;
}
