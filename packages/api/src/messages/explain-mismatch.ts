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
 * Which predicate of `match` a stored message fails, for the timeout `hint` (DECISIONS.md:
 * name the failing predicate and the nearest value seen). It mirrors the SQL of the match only
 * to explain; whether a message matches is always decided by the database.
 */
export function explainMismatch(record: MessageRecord, match: MessageMatch): Mismatch | null {
  const { row } = record;
  const checks: [keyof MessageMatch, string | undefined, () => boolean, () => string][] = [
    ["subject_contains", match.subject_contains, () => has(row.subject, match.subject_contains!), () => row.subject],
    [
      "from_contains",
      match.from_contains,
      () => has(row.from_address === null ? "" : addressText({ address: row.from_address, name: row.from_name }), match.from_contains!),
      () => (row.from_address === null ? "" : addressText({ address: row.from_address, name: row.from_name })),
    ],
    ["to_contains", match.to_contains, () => has([...row.to, ...row.cc].map(addressText).join(", "), match.to_contains!), () => [...row.to, ...row.cc].map(addressText).join(", ")],
    ["body_contains", match.body_contains, () => has(`${row.subject}\n${row.text_body ?? ""}`, match.body_contains!), () => row.subject],
    ["correlation_id", match.correlation_id, () => row.correlation_id === match.correlation_id, () => row.correlation_id ?? "(none)"],
    ["message_id", match.message_id, () => row.message_id === match.message_id, () => row.message_id ?? "(none)"],
    ["since", match.since, () => row.received_at.getTime() >= new Date(match.since!).getTime(), () => row.received_at.toISOString()],
    ["has_code", match.has_code === undefined ? undefined : String(match.has_code), () => row.codes.length > 0 === match.has_code, () => (row.codes.length > 0 ? row.codes.join(", ") : "no code")],
    ["has_link_kind", match.has_link_kind, () => row.links.some((link) => link.kind === match.has_link_kind), () => [...new Set(row.links.map((link) => link.kind))].join(", ") || "no link"],
  ];
  for (const [field, expected, passes, actual] of checks) {
    if (expected !== undefined && !passes()) return { field, expected, actual: actual() };
  }
  for (const [name, value] of Object.entries(match.header_contains ?? {})) {
    const values = row.headers.filter(([header]) => header === name.toLowerCase()).map(([, headerValue]) => headerValue);
    if (!values.some((headerValue) => has(headerValue, value))) {
      return { field: "header_contains", expected: `${name}: ${value}`, actual: values.length > 0 ? `${name}: ${values.join(" | ")}` : `no ${name} header` };
    }
  }
  return null;
}

/** The timeout hint: what failed and what to change, or what to check when nothing arrived. */
export function timeoutHint(inbox: string, waitedMs: number, nonMatching: number, last: Mismatch | null): string {
  if (nonMatching === 0) {
    return `Nothing arrived at ${inbox} in ${waitedMs} ms: check that the application sends to this exact address and that the sending step ran.`;
  }
  const arrivals = `${nonMatching} message${nonMatching === 1 ? "" : "s"} arrived but none matched`;
  if (last === null) return `${arrivals}; widen the match or check its fields.`;
  return `${arrivals}: ${last.field} "${last.expected}" failed; the nearest value was "${last.actual}". Adjust ${last.field} or drop it.`;
}
