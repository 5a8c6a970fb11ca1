import { Command } from "commander";
import { Mailstop, MailstopError, type MessageMatch, WaitTimeoutError } from "@mailstop/sdk/source";
import { impliedMatch, parsePrint, parseTimeout, render } from "./wait-output";

/** Exit statuses of `mailstop wait` (DECISIONS.md "Client surfaces"). */
export const WAIT_EXIT = { found: 0, error: 1, timeout: 2 } as const;

interface WaitOptions {
  inbox: string;
  subjectContains?: string;
  fromContains?: string;
  toContains?: string;
  bodyContains?: string;
  correlationId?: string;
  since?: string;
  timeout: string;
  print?: string;
  json?: boolean;
  apiUrl?: string;
  apiKey?: string;
}

/**
 * `mailstop wait`: one blocking wait through the SDK. Prints what it found on stdout and exits
 * 0; on a timeout prints the server's hint on stderr and exits 2; on any other failure prints
 * the error on stderr and exits 1. `--json` makes both outputs JSON.
 */
export function waitCommand(): Command {
  return new Command("wait")
    .description("wait for a message in an inbox and print it (exit 0 found, 2 timeout, 1 error)")
    .requiredOption("--inbox <id|address>", "the inbox: an id (ibx_…) or its address")
    .option("--subject-contains <text>", "case-insensitive substring of the subject")
    .option("--from-contains <text>", "case-insensitive substring of the From name and address")
    .option("--to-contains <text>", "case-insensitive substring of the To and Cc names and addresses")
    .option("--body-contains <text>", "case-insensitive substring of the subject and the plain-text part")
    .option("--correlation-id <id>", "exact X-Service-Correlation-ID")
    .option("--since <iso-time>", "only messages received at or after this instant (a stored match older than it is not taken)")
    .option("--timeout <duration>", "longest wait: 60s, 500ms, 2m (at most 285s)", "60s")
    .option("--print <what>", "print only: code (waits for a message with a code), link, link:<kind> (waits for one), or json")
    .option("--json", "print the message (or the timeout report, or the error) as JSON")
    .option("--api-url <url>", "the API origin (default MAILSTOP_API_URL, then http://localhost:8025)")
    .option("--api-key <key>", "the API key (default MAILSTOP_API_KEY)")
    .action(async (options: WaitOptions) => {
      process.exitCode = await runWait(options);
    });
}

async function runWait(options: WaitOptions): Promise<number> {
  const json = options.json === true;
  try {
    const requested = parsePrint(options.print);
    const print = json ? ({ what: "json" } as const) : requested;
    const match: MessageMatch = {
      ...impliedMatch(requested),
      ...(options.subjectContains === undefined ? {} : { subject_contains: options.subjectContains }),
      ...(options.fromContains === undefined ? {} : { from_contains: options.fromContains }),
      ...(options.toContains === undefined ? {} : { to_contains: options.toContains }),
      ...(options.bodyContains === undefined ? {} : { body_contains: options.bodyContains }),
      ...(options.correlationId === undefined ? {} : { correlation_id: options.correlationId }),
      ...(options.since === undefined ? {} : { since: options.since }),
    };
    const mailstop = new Mailstop({
      ...(options.apiUrl === undefined ? {} : { baseUrl: options.apiUrl }),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    });
    const message = await mailstop.messages.waitFor(options.inbox, match, { timeout_ms: parseTimeout(options.timeout) });
    process.stdout.write(`${render(message, print)}\n`);
    return WAIT_EXIT.found;
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      if (json) process.stdout.write(`${JSON.stringify(error.result, null, 2)}\n`);
      process.stderr.write(`mailstop: no matching message within ${error.waitedMs} ms (${error.nonMatchingArrivals} other arrivals): ${error.hint}\n`);
      return WAIT_EXIT.timeout;
    }
    process.stderr.write(`${describe(error, json)}\n`);
    return WAIT_EXIT.error;
  }
}

/** The error line: the envelope's code, reason and request id, or the message of a usage error. */
function describe(error: unknown, json: boolean): string {
  if (error instanceof MailstopError) {
    if (json) return JSON.stringify({ error: { code: error.code, reason: error.message, retryable: error.retryable, details: error.details, request_id: error.requestId } });
    return `mailstop: ${error.code}: ${error.message}${error.requestId === undefined ? "" : ` (request ${error.requestId})`}`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return json ? JSON.stringify({ error: { code: "usage", reason } }) : `mailstop: ${reason}`;
}
