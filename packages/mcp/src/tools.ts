import { randomBytes } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { MailstopError } from "@mailstop/sdk/source";
import type { LinkKind, MailstopApi } from "./api";
import { describeCode, describeInbox, describeLink, describeList, describeMessage, describeTimeout, pickLink } from "./format";

/** Default of wait_for_message's timeout_ms: below the 60 s after which MCP clients commonly give up on a call. */
export const DEFAULT_WAIT_MS = 30_000;
/** The wait's own ceiling (docs/api.md "Limits"). */
const MAX_WAIT_MS = 285_000;
const LINK_KINDS = ["verify", "sign_in", "unsubscribe", "reset_password", "other"] as const satisfies readonly LinkKind[];
/** How far back get_link looks for a message with a link when no kind narrows the list. */
const LINK_LOOKBACK = 20;

const inboxArg = z.string().min(1).describe("The inbox: its id (ibx_…) or its email address.");

const text = (body: string): CallToolResult => ({ content: [{ type: "text", text: body }] });

/** An API error as an MCP tool error: code, reason and what the agent may do about it. */
function toolError(error: unknown): CallToolResult {
  const lines = error instanceof MailstopError ? describeFailure(error) : [`Error internal: ${error instanceof Error ? error.message : String(error)}`, "Retryable: yes"];
  return { isError: true, content: [{ type: "text", text: lines.join("\n") }] };
}

/**
 * The SDK's error in the envelope's terms. An API that could not be reached shows as `internal`
 * (the tools speak the API's codes, `network_error` is the SDK's own) with where to look.
 */
function describeFailure(error: MailstopError): string[] {
  const lines = [
    error.code === "network_error" ? `Error internal: ${error.message}; check that it runs at that address (MAILSTOP_API_URL for mailstop mcp).` : `Error ${error.code}: ${error.message}`,
    `Retryable: ${error.retryable ? "yes" : "no"}`,
  ];
  if (error.retryAfterSeconds !== undefined) lines.push(`Retry after: ${error.retryAfterSeconds} s`);
  if (error.details !== undefined) lines.push(`Details: ${JSON.stringify(error.details)}`);
  return lines;
}

/** Runs a tool body; a failed API call becomes the tool's error result, never a protocol error. */
function run<A>(body: (args: A, signal: AbortSignal) => Promise<string>): (args: A, extra: { signal: AbortSignal }) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      return text(await body(args, extra.signal));
    } catch (error) {
      return toolError(error);
    }
  };
}

/** A tag for create_inbox without one: unique, so an agent's runs never share an inbox. */
const freshTag = () => `agent-${randomBytes(5).toString("hex")}`;

/**
 * Registers the tools of docs/decisions.md "MCP server" on `server`, each a call or two of
 * `api`. No management tools (domains, webhooks, keys): an agent tests mail, it does not
 * administer the project.
 */
export function registerTools(server: McpServer, api: MailstopApi): void {
  server.registerTool(
    "create_inbox",
    {
      description: "Create a mailstop test inbox and return its email address. Creating the same tag again returns the same inbox. Without a tag, a fresh unique inbox is made.",
      inputSchema: {
        tag: z.string().min(1).optional().describe("Tag of the inbox: dot-separated segments of a-z, 0-9, - and _ (lower-cased). Omit for a fresh unique inbox."),
        domain: z.string().min(1).optional().describe("A verified custom domain of the project; omit for the shared domain."),
      },
    },
    run(async ({ tag, domain }) => {
      const inbox = await api.createInbox({ tag: tag ?? freshTag(), ...(domain === undefined ? {} : { domain }) });
      return describeInbox(inbox, "Created");
    }),
  );

  server.registerTool(
    "inbox_for_run",
    {
      description: "The inbox of a run id: the same run id always maps to the same address, so a test run and its agent find one inbox.",
      inputSchema: { run_id: z.string().min(1).describe("The run id (a-z, 0-9, -, _ and dots; no capitals or spaces).") },
    },
    run(async ({ run_id }) => describeInbox(await api.inboxForRun({ run_id }), "Run")),
  );

  server.registerTool(
    "wait_for_message",
    {
      description:
        "Block until a message matching the filters is in the inbox, then return its sender, subject, codes, links and a preview. " +
        "A message already received counts: the newest stored match is returned at once, so call this after triggering the email without racing it. " +
        "To wait for a second, newer email, filter on something only it has (subject_contains) or use a fresh inbox. " +
        `On timeout (default ${DEFAULT_WAIT_MS} ms) it returns the server's hint about why nothing matched.`,
      inputSchema: {
        inbox: inboxArg,
        timeout_ms: z.number().int().min(1).max(MAX_WAIT_MS).optional().describe(`Longest wait in milliseconds (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS}).`),
        subject_contains: z.string().min(1).optional().describe("Case-insensitive substring of the subject."),
        from_contains: z.string().min(1).optional().describe("Case-insensitive substring of the sender, searched as `Name <address>`."),
        to_contains: z.string().min(1).optional().describe("Case-insensitive substring of the To and Cc names and addresses."),
        body_contains: z.string().min(1).optional().describe("Case-insensitive substring of the subject or the text part."),
      },
    },
    run(async ({ inbox, timeout_ms, ...filters }, signal) => {
      // Always a match, even `{}`: stored messages count (docs/decisions.md "MCP server").
      const match = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
      const result = await api.waitForMessage({ inbox, timeout_ms: timeout_ms ?? DEFAULT_WAIT_MS, match }, signal);
      return result.status === "matched" ? describeMessage(result.message) : describeTimeout(result);
    }),
  );

  server.registerTool(
    "list_messages",
    {
      description: "List the newest messages of an inbox, one line each (id, time, sender, subject, codes). Use get_message for one message's links and preview.",
      inputSchema: { inbox: inboxArg, limit: z.number().int().min(1).max(200).optional().describe("How many messages, newest first (default 10, at most 200).") },
    },
    run(async ({ inbox, limit }) => describeList(inbox, await api.listMessages({ inbox, limit: limit ?? 10 }))),
  );

  server.registerTool(
    "get_message",
    {
      description: "One message by id (msg_…): sender, subject, codes, links, attachments, a short text preview and the statuses of its checks (authentication, html, links, spam).",
      inputSchema: { id: z.string().min(1).describe("The message id (msg_…).") },
    },
    run(async ({ id }) => describeMessage(await api.getMessage(id))),
  );

  server.registerTool(
    "get_latest_code",
    {
      description: "The one-time code (OTP, verification code) of the newest message in the inbox that has one. Does not wait: call wait_for_message first if the email may not have arrived.",
      inputSchema: { inbox: inboxArg },
    },
    run(async ({ inbox }) => {
      const [message] = await api.listMessages({ inbox, limit: 1, has_code: true });
      return message === undefined ? `No message with a code in inbox ${inbox} yet. Call wait_for_message to block until the email arrives.` : describeCode(message);
    }),
  );

  server.registerTool(
    "get_link",
    {
      description:
        "A link of the newest message in the inbox that has one: of the given kind, or else its first link that is not an unsubscribe link. Does not wait: call wait_for_message first if the email may not have arrived.",
      inputSchema: { inbox: inboxArg, kind: z.enum(LINK_KINDS).optional().describe("verify, sign_in, unsubscribe, reset_password or other.") },
    },
    run(async ({ inbox, kind }) => {
      const messages = await api.listMessages({ inbox, limit: kind === undefined ? LINK_LOOKBACK : 1, ...(kind === undefined ? {} : { has_link_kind: kind }) });
      for (const message of messages) {
        const link = pickLink(message, kind);
        if (link !== undefined) return describeLink(message, link);
      }
      return `No message with ${kind === undefined ? "a link" : `a ${kind} link`} in inbox ${inbox} yet. Call wait_for_message to block until the email arrives.`;
    }),
  );
}

/** An MCP server named mailstop with every tool over `api`. */
export function createMcpServer(api: MailstopApi): McpServer {
  const server = new McpServer({ name: "mailstop", version: "0.1.0" });
  registerTools(server, api);
  return server;
}
