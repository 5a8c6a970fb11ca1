import { type Admission, type Refusal, refusalOf } from "@mailstop/db";
import { REPLY } from "./smtp-reply";

/** The reply of each refusal at RCPT: 550 5.7.1 for good, 452 4.3.1 while a limit is reached. */
export function replyToRefusal(refusal: Refusal) {
  return { suspended: REPLY.suspended, ingest_ceiling: REPLY.ingestCeiling, organisation_limit: REPLY.organisationLimit }[refusal]();
}

/**
 * Refuses a project's mail at RCPT, nothing stored: its organisation suspended (550 5.7.1);
 * its ingest ceiling for the period reached, or its organisation's limits on and reached
 * (452 4.3.1, while it lasts). Against stored usage alone, this is the cheap first check of a
 * metered project; the reservation (reservations.ts) decides with what is reserved too.
 */
export function assertAdmitted(admission: Admission): void {
  const refusal = refusalOf(admission);
  if (refusal !== null) throw replyToRefusal(refusal);
}
