import { Command } from "commander";
import { MISSING_KEY_REASON, Mailstop, MailstopError } from "@mailstop/sdk/source";
import { positiveInteger } from "./parse-options";

/** Exit status of every client subcommand but a wait's timeout (docs/decisions.md "CLI client subcommands"). */
export const EXIT = { ok: 0, error: 1 } as const;

/** The options every client subcommand takes (`mailstop wait` included). */
export interface ClientOptions {
  json?: boolean;
  apiUrl?: string;
  apiKey?: string;
}

/** What a subcommand prints: `json` (the SDK's answer as it is) with `--json`, else `text`. */
export interface Printed {
  json: unknown;
  text: string;
}

/** Adds `--api-url` and `--api-key`, which override MAILSTOP_API_URL and MAILSTOP_API_KEY. */
export function withConnection(command: Command): Command {
  return command
    .option("--api-url <url>", "the API origin (default MAILSTOP_API_URL, then http://localhost:8025)")
    .option("--api-key <key>", "the API key (default MAILSTOP_API_KEY)");
}

/** A client leaf subcommand (`inboxes get …`): `--json` and the connection options. */
export function clientCommand(nameAndArgs: string, description: string): Command {
  return withConnection(new Command(nameAndArgs).description(description).option("--json", "print the API's answer as JSON on stdout (an error as JSON on stderr)"));
}

/** The SDK client the options (else the environment) configure. */
export function connect(options: ClientOptions): Mailstop {
  return new Mailstop({
    ...(options.apiUrl === undefined ? {} : { baseUrl: options.apiUrl }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
}

/**
 * The action of a client subcommand: calls `run` with the client, the options and the
 * positional argument (each subcommand takes at most one, an id; commander refuses a missing
 * one before this runs), prints its answer on stdout (exit 0) or the error on stderr (exit 1).
 */
export function clientAction<O extends ClientOptions>(run: (mailstop: Mailstop, options: O, id: string) => Promise<Printed>): (...params: unknown[]) => Promise<void> {
  return async (...params) => {
    const command = params.at(-1) as Command;
    const options = command.opts<O>();
    try {
      const printed = await run(connect(options), options, command.args[0] ?? "");
      const out = options.json === true ? JSON.stringify(printed.json, null, 2) : printed.text;
      process.stdout.write(out === "" || out.endsWith("\n") ? out : `${out}\n`);
      process.exitCode = EXIT.ok;
    } catch (error) {
      process.stderr.write(`${describeError(error, options.json === true)}\n`);
      process.exitCode = EXIT.error;
    }
  };
}

/** The CLI's words for the SDK's refusal without a key: its options, not the SDK's. */
export const CLI_MISSING_KEY_REASON = "No mailstop API key: set MAILSTOP_API_KEY or pass --api-key <key>. A local mailstop makes one with `mailstop keys create --project local`.";

/** The error line: the envelope's code, reason and request id, or the message of a usage error. */
export function describeError(error: unknown, json: boolean): string {
  if (error instanceof MailstopError && error.message === MISSING_KEY_REASON) {
    return json ? JSON.stringify({ error: { code: error.code, reason: CLI_MISSING_KEY_REASON, retryable: false } }) : `mailstop: ${CLI_MISSING_KEY_REASON}`;
  }
  if (error instanceof MailstopError) {
    if (json) return JSON.stringify({ error: { code: error.code, reason: error.message, retryable: error.retryable, details: error.details, request_id: error.requestId } });
    return `mailstop: ${error.code}: ${error.message}${error.requestId === undefined ? "" : ` (request ${error.requestId})`}`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return json ? JSON.stringify({ error: { code: "usage", reason } }) : `mailstop: ${reason}`;
}

/** Lines of columns separated by two spaces (the style of `mailstop wait`'s summary). */
export function lines(rows: readonly (readonly (string | number | null)[])[]): string {
  return rows.map((row) => row.map((cell) => (cell === null ? "-" : String(cell))).join("  ")).join("\n");
}

/** `<resource> list [--limit n]`: one page, newest first, one line per item. */
export function listCommand<T>(description: string, list: (mailstop: Mailstop, query: { limit?: number }) => Promise<{ data: T[] }>, text: (items: T[]) => string): Command {
  return clientCommand("list", `${description} (one page, newest first)`)
    .option("--limit <n>", "how many (1 to 200, default 50)", positiveInteger)
    .action(
      clientAction(async (mailstop, options: ClientOptions & { limit?: number }) => {
        const page = await list(mailstop, options.limit === undefined ? {} : { limit: options.limit });
        return { json: page, text: text(page.data) };
      }),
    );
}

/** `<resource> <name> <argument>`: one call with the argument, printing its answer (`json`) or what `text` says of it. */
export function argumentCommand<A>(
  name: string,
  description: string,
  argument: [name: string, description: string],
  call: (mailstop: Mailstop, argument: string) => Promise<A>,
  text: (answer: A) => string,
): Command {
  return clientCommand(name, description)
    .argument(...argument)
    .action(
      clientAction(async (mailstop, _options, value) => {
        const answer = await call(mailstop, value);
        return { json: answer, text: text(answer) };
      }),
    );
}

/** `<resource> delete <id>`: prints `deleted <id>` (or what `text` says of the answer). */
export function deleteCommand<A extends { id: string }>(
  description: string,
  argument: [name: string, description: string],
  remove: (mailstop: Mailstop, id: string) => Promise<A>,
  text: (answer: A) => string = (answer) => `deleted ${answer.id}`,
): Command {
  return argumentCommand("delete", description, argument, remove, text);
}
