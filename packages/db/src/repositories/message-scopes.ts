import { type RawBuilder, type SqlBool, sql } from "kysely";

// SQL rather than kysely's typed builder: the same condition serves `messages` itself and the
// reads' alias of it (`m`, joined with inboxes, which have none of these columns), and kysely's
// expression builders of the two scopes are different types.

/** Not tombstoned and not expired at `now`: a message that still counts and may still be erased or streamed. */
export const liveAt = (now: Date): RawBuilder<SqlBool> => sql<SqlBool>`deleted_at is null and expires_at > ${now}`;

/** Live and already visible at `now` (a `sim.delay` copy is not, until its delay ends): what a read may see. */
export const readableAt = (now: Date): RawBuilder<SqlBool> => sql<SqlBool>`deleted_at is null and visible_at <= ${now} and expires_at > ${now}`;
