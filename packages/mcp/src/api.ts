import { type MailstopClient, type Schemas, createMailstopClient } from "@mailstop/client";

export type Inbox = Schemas["Inbox"];
export type MessageView = Schemas["MessageView"];
export type WaitResult = Schemas["WaitResult"];
export type LinkKind = Schemas["LinkKind"];
export type ErrorBody = Schemas["Error"]["error"];

/**
 * The few calls the tools make: the small interface both transports share. Each is one route
 * of the public API, so every rule of that route (scopes, rate class, allowances) applies.
 */
export interface MailstopApi {
  createInbox(body: { tag: string; domain?: string }): Promise<Inbox>;
  inboxForRun(body: { run_id: string }): Promise<Inbox>;
  /** `signal` ends the blocking request when the tool call is cancelled or its client goes away. */
  waitForMessage(body: { inbox: string; timeout_ms: number; match: Schemas["MessageMatch"] }, signal?: AbortSignal): Promise<WaitResult>;
  listMessages(query: { inbox: string; limit: number; has_code?: boolean; has_link_kind?: LinkKind }): Promise<MessageView[]>;
  getMessage(id: string): Promise<MessageView>;
}

/** A failed call, carrying the API's error envelope (or one made up for a transport failure). */
export class ApiCallError extends Error {
  constructor(readonly body: ErrorBody) {
    super(`${body.code}: ${body.reason}`);
    this.name = "ApiCallError";
  }
}

/** Characters of body text a tool result shows: enough to read a mail's gist, never the whole. */
export const PREVIEW_CHARS = 400;

async function settle<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (data !== undefined) return data;
  const envelope = (error as { error?: ErrorBody } | undefined)?.error;
  throw new ApiCallError(
    envelope?.code === undefined
      ? { code: "internal", reason: `mailstop answered HTTP ${response.status} without an error envelope.`, retryable: response.status >= 500 }
      : envelope,
  );
}

/**
 * The interface over the REST API with one key: openapi-fetch through @mailstop/client. The
 * wait goes through `waitClient` when given: a split api reaches the wait on a waiter.
 */
export function restApi(client: MailstopClient, waitClient: MailstopClient = client): MailstopApi {
  return {
    createInbox: (body) => settle(client.POST("/v1/inboxes", { body })),
    inboxForRun: (body) => settle(client.POST("/v1/inboxes/for-run", { body })),
    waitForMessage: (body, signal) => settle(waitClient.POST("/v1/messages/wait", { body: { ...body, preview_chars: PREVIEW_CHARS }, ...(signal === undefined ? {} : { signal }) })),
    listMessages: async (query) => (await settle(client.GET("/v1/messages", { params: { query } }))).data,
    getMessage: (id) => settle(client.GET("/v1/messages/{id}", { params: { path: { id }, query: { preview_chars: PREVIEW_CHARS } } })),
  };
}

/**
 * {@link restApi} for a mailstop at `baseUrl` (its wait at `waitUrl`, by default the same)
 * with `apiKey`. A request that never reached mailstop (refused connection, DNS) becomes an
 * `ApiCallError` naming the URL, so an agent reads why instead of a stack trace.
 */
export function mailstopApi(options: { baseUrl: string; waitUrl?: string; apiKey: string }): MailstopApi {
  const reach = (origin: string): typeof fetch => async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      if (input instanceof Request && input.signal.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiCallError({
        code: "internal",
        reason: `Could not reach mailstop at ${origin} (${cause?.code ?? cause?.message ?? String(error)}); check that it runs at that address (MAILSTOP_API_URL for mailstop mcp).`,
        retryable: true,
      });
    }
  };
  const client = (origin: string) => createMailstopClient({ baseUrl: origin, apiKey: options.apiKey, fetch: reach(origin) });
  return restApi(client(options.baseUrl), client(options.waitUrl ?? options.baseUrl));
}
