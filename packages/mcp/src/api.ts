import { Mailstop, type Schemas } from "@mailstop/sdk/source";

export type Inbox = Schemas["Inbox"];
export type MessageView = Schemas["MessageView"];
export type WaitResult = Schemas["WaitResult"];
export type LinkKind = Schemas["LinkKind"];

/**
 * The few calls the tools make: the small interface both transports share. Each is one route
 * of the public API, so every rule of that route (scopes, rate class, allowances) applies.
 * A failed call rejects with the SDK's `MailstopError`.
 */
export interface MailstopApi {
  createInbox(body: { tag: string; domain?: string }): Promise<Inbox>;
  inboxForRun(body: { run_id: string }): Promise<Inbox>;
  /** `signal` ends the blocking request when the tool call is cancelled or its client goes away. */
  waitForMessage(body: { inbox: string; timeout_ms: number; match: Schemas["MessageMatch"] }, signal?: AbortSignal): Promise<WaitResult>;
  listMessages(query: { inbox: string; limit: number; has_code?: boolean; has_link_kind?: LinkKind }): Promise<MessageView[]>;
  getMessage(id: string): Promise<MessageView>;
}

/** Characters of body text a tool result shows: enough to read a mail's gist, never the whole. */
export const PREVIEW_CHARS = 400;

/**
 * The interface over the REST API through `@mailstop/sdk`, the client every user-facing surface
 * shares. The wait goes through `waitOn` when given: a split api reaches the wait on a waiter.
 */
export function restApi(mailstop: Mailstop, waitOn: Mailstop = mailstop): MailstopApi {
  return {
    createInbox: (body) => mailstop.inboxes.create(body),
    inboxForRun: ({ run_id }) => mailstop.inboxes.forRun(run_id),
    waitForMessage: (body, signal) => waitOn.messages.wait({ ...body, preview_chars: PREVIEW_CHARS }, signal === undefined ? {} : { signal }),
    listMessages: async (query) => (await mailstop.messages.list(query)).data,
    getMessage: (id) => mailstop.messages.get(id, { preview_chars: PREVIEW_CHARS }),
  };
}

/**
 * {@link restApi} for a mailstop at `baseUrl` (its wait at `waitUrl`, by default the same)
 * with `apiKey`. One attempt per call: the agent is the retry loop, and a tool's error result
 * tells it whether and when to try again (docs/decisions.md "One client under every surface").
 */
export function mailstopApi(options: { baseUrl: string; waitUrl?: string; apiKey: string }): MailstopApi {
  const at = (baseUrl: string) => new Mailstop({ baseUrl, apiKey: options.apiKey, maxAttempts: 1 });
  return restApi(at(options.baseUrl), at(options.waitUrl ?? options.baseUrl));
}
