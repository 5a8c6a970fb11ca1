import { periodStart, spentLimit } from "@mailstop/core";
import { type Admission, type Db, findAdmission } from "@mailstop/db";
import { REPLY } from "./smtp-reply";

/**
 * Refuses a project's mail at RCPT, nothing stored: its organisation suspended (550 5.7.1);
 * its ingest ceiling for the period reached, or its organisation's limits on and reached
 * (452 4.3.1, while it lasts). A project's own allowance never refuses mail: it refuses reads.
 */
export function assertAdmitted(admission: Admission): void {
  if (admission.suspended) throw REPLY.suspended();
  if (admission.ingestCeiling !== null && (admission.ingested ?? 0) >= admission.ingestCeiling) throw REPLY.ingestCeiling();
  if (spentLimit(admission.limits) !== null) throw REPLY.organisationLimit();
}

/**
 * The capture relay's check at RCPT. Its AUTH read the project's admission without usage;
 * when a limit needs usage, the admission is read again now (one query), so a ceiling or an
 * organisation limit reached during a session counts, and suspension with it. Without one,
 * the session's AUTH decides suspension (one connection per message for most senders).
 */
export async function assertCaptureAdmitted(db: Db, projectId: string, atAuth: Admission, now = new Date()): Promise<void> {
  if (atAuth.suspended) throw REPLY.suspended();
  if (!atAuth.metered) return;
  const current = await findAdmission(db, projectId, periodStart(now));
  // The project deleted since AUTH: nothing to file it under.
  if (current === null) throw REPLY.unknownRecipient();
  assertAdmitted(current);
}
