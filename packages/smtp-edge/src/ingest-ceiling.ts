import { periodStart } from "@mailstop/core";
import { type Db, ingestedInPeriod } from "@mailstop/db";
import { REPLY } from "./smtp-reply";

/** Refuses with 452 4.3.1 when the project has taken in its ceiling for the period; nothing is stored. */
export async function assertUnderIngestCeiling(db: Db, projectId: string, ceiling: number | null, now = new Date()): Promise<void> {
  if (ceiling === null) return;
  if ((await ingestedInPeriod(db, projectId, periodStart(now))) >= ceiling) throw REPLY.ingestCeiling();
}
