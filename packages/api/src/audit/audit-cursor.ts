import { isId } from "@mailstop/core";
import type { AuditPosition } from "@mailstop/db";

// The listing's keyset is (at, id): ids alone do not order events written by different
// processes, whose clocks (and ULIDs) differ. The cursor carries both, as `<ISO instant> <id>`.

export function auditPosition(event: AuditPosition): string {
  return `${event.at.toISOString()} ${event.id}`;
}

/** The position of a cursor's string, or null when it is not one this API wrote. */
export function parseAuditPosition(position: string): AuditPosition | null {
  const [instant, id, ...rest] = position.split(" ");
  if (instant === undefined || id === undefined || rest.length > 0 || !isId("auditEvent", id)) return null;
  const at = new Date(instant);
  return Number.isNaN(at.getTime()) || at.toISOString() !== instant ? null : { at, id };
}
