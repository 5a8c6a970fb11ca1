import type { Mailstop, MessageMatch, MessageView, Schemas } from "@mailstop/sdk";
import { waitTimeoutMs } from "./timeout-option.js";

export type LinkKind = Schemas["LinkKind"];

export interface WaitOptions {
  /**
   * Longest wait in milliseconds; default the fixture's `waitTimeoutMs` (30 s). Never past the
   * test's own timeout: the wait ends a second before it, with the server's hint.
   */
  timeoutMs?: number;
  /** @deprecated Use `timeoutMs` (a deprecation warning is printed once). */
  timeout_ms?: number;
}

/** What the fixture hands the inbox: how to wait within the test's time, and how to name a step. */
export interface InboxContext {
  client: Mailstop;
  /** The timeout of one wait, from what was asked and the time the test has left. */
  budget(requestedMs: number | undefined): number;
  /** Runs `body` as a named step of the test's report. */
  step<T>(title: string, body: () => Promise<T>): Promise<T>;
}

/**
 * The test's inbox: its address to type into the application, and waits that block (server
 * side) until the email is stored. Matching follows the API's stored-match rule: a message
 * already stored counts, the newest match first, so the email a click just sent is found
 * whether it arrived before the call or after it.
 */
export class MailstopInbox {
  /** The inbox id (`ibx_…`). */
  readonly id: string;
  /** The address the application should send to. */
  readonly address: string;
  /** The inbox's tag (`capture.<domain>.<local>` for a capture inbox). */
  readonly tag: string;

  constructor(
    inbox: Schemas["Inbox"],
    address: string,
    private readonly context: InboxContext,
  ) {
    this.id = inbox.id;
    this.tag = inbox.tag;
    this.address = address;
  }

  /**
   * The newest message matching `match` (every message when empty), waiting for it to arrive.
   * Throws the SDK's `WaitTimeoutError`, whose message is the server's hint, when none does.
   */
  waitForMessage(match: MessageMatch = {}, options: WaitOptions = {}): Promise<MessageView> {
    return this.context.step(`wait for an email to ${this.address}${describe(match)}`, () =>
      this.context.client.messages.waitFor(this.id, match, { timeoutMs: this.context.budget(waitTimeoutMs(options)) }),
    );
  }

  /** The one-time code of the newest message that has one (and matches `match`). */
  async waitForCode(match: MessageMatch = {}, options: WaitOptions = {}): Promise<string> {
    const message = await this.waitForMessage({ ...match, has_code: true }, options);
    // `has_code` matched, so the message has at least one; the most likely comes first.
    return message.codes[0] as string;
  }

  /**
   * The URL of a link of `kind` (`verify`, `sign_in`, `reset_password`, `unsubscribe`, `other`)
   * in the newest message that has one; without `kind`, the first link of the newest message
   * that is not an unsubscribe link (as the MCP server's `get_link`).
   */
  async waitForLink(kind?: LinkKind, match: MessageMatch = {}, options: WaitOptions = {}): Promise<string> {
    const message = await this.waitForMessage(kind === undefined ? match : { ...match, has_link_kind: kind }, options);
    const link = message.links.find((candidate) => (kind === undefined ? candidate.kind !== "unsubscribe" : candidate.kind === kind));
    if (link === undefined) throw new Error(`the email "${message.subject}" (${message.id}) to ${this.address} has no link`);
    return link.url;
  }

  /** The inbox's messages, newest first (one page of up to `limit`, previews empty). */
  async messages(limit = 50): Promise<Schemas["MessageList"]["data"]> {
    return (await this.context.client.messages.list({ inbox: this.id, limit })).data;
  }
}

function describe(match: MessageMatch): string {
  const predicates = Object.entries(match).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return predicates.length === 0 ? "" : ` (${predicates.join(", ")})`;
}
