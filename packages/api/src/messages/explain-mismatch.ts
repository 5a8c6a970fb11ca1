import type { MessageRecord } from "@mailstop/db";
import type { MessageMatch } from "./message-filter";

/** The first match field a message fails, and the message's own value for it. */
export interface Mismatch {
  field: keyof MessageMatch;
  expected: string;
  actual: string;
}

const has = (haystack: string, needle: string) => haystack.toLowerCase().includes(needle.toLowerCase());
const addressText = (entry: { address: string; name: string | null }) => [entry.name, `<${entry.address}>`].filter(Boolean).join(" ");

/**
 * Which predicate of `match` a stored message fails, for the timeout `hint`, which names the
 * failing predicate and the nearest value seen (docs/waits-and-streams.md "The timeout"). It mirrors the SQL of the match only
 * to explain; whether a message matches is always decided by the database.
 */
export function explainMismatch(message: MessageRecord, match: MessageMatch): Mismatch | null {
  const from = message.from === null ? "" : addressText(message.from);
  const recipients = () => [...message.to, ...message.cc].map(addressText).join(", ");
  const checks: [keyof MessageMatch, string | undefined, () => boolean, () => string][] = [
    ["subject_contains", match.subject_contains, () => has(message.subject, match.subject_contains!), () => message.subject],
    ["from_contains", match.from_contains, () => has(from, match.from_contains!), () => from],
    ["to_contains", match.to_contains, () => has(recipients(), match.to_contains!), recipients],
    ["body_contains", match.body_contains, () => has(`${message.subject}\n${message.textBody ?? ""}`, match.body_contains!), () => message.subject],
    ["correlation_id", match.correlation_id, () => message.correlationId === match.correlation_id, () => message.correlationId ?? "(none)"],
    ["message_id", match.message_id, () => message.messageId === match.message_id, () => message.messageId ?? "(none)"],
    ["since", match.since, () => message.receivedAt.getTime() >= new Date(match.since!).getTime(), () => message.receivedAt.toISOString()],
    [
      "has_code",
      match.has_code === undefined ? undefined : String(match.has_code),
      () => message.codes.length > 0 === match.has_code,
      () => (message.codes.length > 0 ? message.codes.join(", ") : "no code"),
    ],
    [
      "has_link_kind",
      match.has_link_kind,
      () => message.links.some((link) => link.kind === match.has_link_kind),
      () => [...new Set(message.links.map((link) => link.kind))].join(", ") || "no link",
    ],
  ];
  for (const [field, expected, passes, actual] of checks) {
    if (expected !== undefined && !passes()) return { field, expected, actual: actual() };
  }
  for (const [name, value] of Object.entries(match.header_contains ?? {})) {
    const values = message.headers.filter(([header]) => header === name.toLowerCase()).map(([, headerValue]) => headerValue);
    if (!values.some((headerValue) => has(headerValue, value))) {
      return { field: "header_contains", expected: `${name}: ${value}`, actual: values.length > 0 ? `${name}: ${values.join(" | ")}` : `no ${name} header` };
    }
  }
  return null;
}

/** The newest message already stored in the inbox when nothing new arrived, and why it failed the match. */
export interface StoredMiss {
  subject: string;
  mismatch: Mismatch | null;
}

/**
 * The timeout hint: what failed and what to change, or what to check when nothing arrived.
 * With nothing new but a stored message that fails the match (a test that awaits the wrong
 * email, or a predicate with a typo), it names that message and its failing predicate: "check
 * that the application sends" would send the reader to the wrong place.
 */
export function timeoutHint(inbox: string, waitedMs: number, nonMatching: number, last: Mismatch | null, stored: StoredMiss | null = null): string {
  if (nonMatching === 0) {
    if (stored !== null) {
      const newest = `Nothing new arrived at ${inbox} in ${waitedMs} ms, and its newest stored message ("${stored.subject}") does not match`;
      if (stored.mismatch === null) return `${newest}; widen the match or check its fields.`;
      return `${newest}: ${stored.mismatch.field} "${stored.mismatch.expected}" failed; its value was "${stored.mismatch.actual}". Adjust ${stored.mismatch.field}, or check that the application sent the email this wait expects.`;
    }
    return `Nothing arrived at ${inbox} in ${waitedMs} ms: check that the application sends to this exact address and that the sending step ran.`;
  }
  const arrivals = `${nonMatching} message${nonMatching === 1 ? "" : "s"} arrived but none matched`;
  if (last === null) return `${arrivals}; widen the match or check its fields.`;
  return `${arrivals}: ${last.field} "${last.expected}" failed; the nearest value was "${last.actual}". Adjust ${last.field} or drop it.`;
}
