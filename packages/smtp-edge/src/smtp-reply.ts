/** An error smtp-server sends as `<code> <message>`; the message starts with its enhanced status code. */
export type SmtpReply = Error & { responseCode: number };

export function smtpReply(code: number, message: string): SmtpReply {
  return Object.assign(new Error(message), { responseCode: code });
}

export function isSmtpReply(error: unknown): error is SmtpReply {
  return error instanceof Error && typeof (error as Partial<SmtpReply>).responseCode === "number";
}

/** What the capture relay answers (530) a MAIL FROM before AUTH: smtp-server's `authRequiredMessage`. */
export const AUTH_REQUIRED_MESSAGE = "5.7.0 Authentication required: AUTH PLAIN or LOGIN with the project key as user (local on a laptop) and its capture relay password";

/** Every refusal the edge gives, in one place. */
export const REPLY = {
  unknownRecipient: () => smtpReply(550, "5.1.1 No such mailbox here"),
  /** An address of the shared domain whose project has no inbox of that tag: says how to make one. */
  noSuchInbox: (address: string, tag: string) => smtpReply(550, `5.1.1 <${address}>: no such inbox; create it first (POST /v1/inboxes {"tag": "${tag}"}), then send again`),
  /** An address of the shared domain that is not `<project_key>.<tag>@<domain>`. */
  notAnInboxAddress: (address: string, domain: string) => smtpReply(550, `5.1.1 <${address}>: not an inbox address; mail here goes to <project_key>.<tag>@${domain}`),
  hardBounce: () => smtpReply(550, "5.1.1 Simulated hard bounce (sim.hard-bounce)"),
  softBounce: () => smtpReply(452, "4.2.2 Simulated full mailbox (sim.soft-bounce), try again later"),
  oversize: () => smtpReply(552, "5.3.4 Simulated message too big (sim.oversize)"),
  greylisted: () => smtpReply(451, "4.7.1 Greylisted (sim.greylist), please retry in a moment"),
  blocked: () => smtpReply(550, "5.7.1 Recipient address is blocked"),
  ingestCeiling: () => smtpReply(452, "4.3.1 Project ingest ceiling reached for this period, try again later"),
  organisationLimit: () => smtpReply(452, "4.3.1 Organisation limit reached, try again later"),
  suspended: () => smtpReply(550, "5.7.1 Organisation suspended, mail refused"),
  tooBig: () => smtpReply(552, "5.3.4 Message exceeds the size limit"),
  badCaptureAddress: () => smtpReply(553, "5.1.3 Recipient address cannot be filed"),
  badCredentials: () => smtpReply(535, "5.7.8 Authentication credentials invalid: the user is the project key (local on a laptop), the password its capture relay password"),
  temporaryFailure: () => smtpReply(451, "4.3.0 Temporary storage failure, please retry"),
  /** The disk under the durable writes is (nearly) full: RFC 3463's "mail system full", retryable. */
  insufficientStorage: () => smtpReply(452, "4.3.1 Insufficient system storage, please retry later"),
  /** Anything unexpected (database or Redis unreachable) while deciding: transient, text hidden. */
  temporaryLocalError: () => smtpReply(451, "4.3.0 Temporary local problem, please retry"),
  temporaryAuthFailure: () => smtpReply(454, "4.7.0 Temporary authentication failure, please retry"),
  /** Said to a connection before a stopping edge closes it (RFC 5321 4.2.2: 421 closes the channel). */
  shuttingDown: () => smtpReply(421, "4.3.2 Service shutting down, please retry"),
};
