import { listAuditEvents } from "@mailstop/db";
import { auditPosition, parseAuditPosition } from "../../audit/audit-cursor";
import { toAuditEventView } from "../../audit/audit.view";
import { type ApiDeps, publicRoute } from "../../deps";
import { decodeCursor, pageOf } from "../../paging/cursor";

/** GET /v1/audit-events: the project's audit trail, newest first, keyset-paged on (at, id). */
export const listAuditEventsRoute = ({ db }: ApiDeps) =>
  publicRoute("listAuditEvents", async ({ auth, query }) => {
    const limit = query.limit ?? 50;
    const position = decodeCursor(query.cursor, (candidate) => parseAuditPosition(candidate) !== null);
    const rows = await listAuditEvents(
      db,
      auth.project.id,
      {
        ...(query.action === undefined ? {} : { action: query.action }),
        ...(query.since === undefined ? {} : { since: new Date(query.since) }),
        ...(query.until === undefined ? {} : { until: new Date(query.until) }),
      },
      { before: position === null ? null : parseAuditPosition(position), limit: limit + 1 },
    );
    const page = pageOf(rows, limit, auditPosition);
    return { status: 200, body: { data: page.items.map(toAuditEventView), limit, next_cursor: page.nextCursor } };
  });
