import type { Command } from "commander";
import type { MessageMatch } from "@mailstop/sdk/source";

/** The match flags of `mailstop wait` and `mailstop messages list`, as commander reads them. */
export interface MatchOptions {
  subjectContains?: string;
  fromContains?: string;
  toContains?: string;
  bodyContains?: string;
  correlationId?: string;
  since?: string;
}

/** Adds the match flags (the wait's `match` fields, also the list's filters). */
export function withMatchOptions(command: Command): Command {
  return command
    .option("--subject-contains <text>", "case-insensitive substring of the subject")
    .option("--from-contains <text>", "case-insensitive substring of the From name and address")
    .option("--to-contains <text>", "case-insensitive substring of the To and Cc names and addresses")
    .option("--body-contains <text>", "case-insensitive substring of the subject and the plain-text part")
    .option("--correlation-id <id>", "exact X-Service-Correlation-ID")
    .option("--since <iso-time>", "only messages received at or after this instant");
}

/** The match the flags given name; absent flags do not constrain. */
export function matchOf(options: MatchOptions): MessageMatch {
  const fields = {
    subject_contains: options.subjectContains,
    from_contains: options.fromContains,
    to_contains: options.toContains,
    body_contains: options.bodyContains,
    correlation_id: options.correlationId,
    since: options.since,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
