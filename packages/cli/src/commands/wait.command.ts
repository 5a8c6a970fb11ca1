import { Command } from "commander";
import { type Mailstop, type MessageMatch, WaitTimeoutError } from "@mailstop/sdk/source";
import { type ClientOptions, EXIT, connect, describeError, withConnection } from "./client-command";
import { type MatchOptions, matchOf, withMatchOptions } from "./match-options";
import { impliedMatch, parsePrint, parseTimeout, render } from "./wait-output";

/** Exit statuses of `mailstop wait` (docs/decisions.md "CLI client subcommands"). */
export const WAIT_EXIT = { found: EXIT.ok, error: EXIT.error, timeout: 2 } as const;

interface WaitOptions extends ClientOptions, MatchOptions {
  inbox?: string;
  capture?: string;
  timeout: string;
  print?: string;
}

/**
 * `mailstop wait`: one blocking wait through the SDK. Prints what it found on stdout and exits
 * 0; on a timeout prints the server's hint on stderr and exits 2; on any other failure prints
 * the error on stderr and exits 1. `--json` makes both outputs JSON.
 */
export function waitCommand(): Command {
  const command = new Command("wait")
    .description("wait for a message in an inbox and print it (exit 0 found, 2 timeout, 1 error)")
    .option("--inbox <id|address>", "the inbox: an id (ibx_…) or its address")
    .option("--capture <recipient>", "instead of --inbox: the capture inbox of mail your application sent through the capture relay to <recipient>");
  return withConnection(
    withMatchOptions(command)
      .option("--timeout <duration>", "longest wait: 60s, 500ms, 2m (at most 285s)", "60s")
      .option("--print <what>", "print only: code (waits for a message with a code), link, link:<kind> (waits for one), or json")
      .option("--json", "print the message (or the timeout report, or the error) as JSON"),
  ).action(async (options: WaitOptions) => {
    process.exitCode = await runWait(options);
  });
}

/** `--inbox` as given, or the capture inbox of `--capture`'s recipient: exactly one of them. */
async function inboxOf(mailstop: Mailstop, options: WaitOptions): Promise<string> {
  if ((options.inbox === undefined) === (options.capture === undefined)) throw new Error("name the inbox: --inbox <id|address>, or --capture <recipient> for mail sent through the capture relay");
  return options.inbox ?? (await mailstop.inboxes.captureAddressOf(options.capture!));
}

async function runWait(options: WaitOptions): Promise<number> {
  const json = options.json === true;
  try {
    const requested = parsePrint(options.print);
    const print = json ? ({ what: "json" } as const) : requested;
    const match: MessageMatch = { ...impliedMatch(requested), ...matchOf(options) };
    const timeoutMs = parseTimeout(options.timeout);
    const mailstop = connect(options);
    const message = await mailstop.messages.waitFor(await inboxOf(mailstop, options), match, { timeoutMs });
    process.stdout.write(`${render(message, print)}\n`);
    return WAIT_EXIT.found;
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      if (json) process.stdout.write(`${JSON.stringify(error.result, null, 2)}\n`);
      process.stderr.write(`mailstop: no matching message within ${error.waitedMs} ms (${error.nonMatchingArrivals} other arrivals): ${error.hint}\n`);
      return WAIT_EXIT.timeout;
    }
    process.stderr.write(`${describeError(error, json)}\n`);
    return WAIT_EXIT.error;
  }
}
