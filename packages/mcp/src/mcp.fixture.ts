import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type SuiteServer, eventually, uniqueRunId } from "@mailstop/testkit";

// The MCP suites' helpers (mcp.int.test.ts, mcp-split.engines.int.test.ts).

export /** Calls a tool and returns its text and whether it is an error result. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
  return { text, isError: result.isError === true };
}

export /** A mail with a code and two links, like a sign-up confirmation. */
const signup = (to: string, subject: string) => ({
  to,
  subject,
  text: `Your verification code is 482913.\nConfirm your email: https://app.example/verify?t=abc\nUnsubscribe: https://app.example/unsubscribe`,
});

/** The helpers bound to the suite's server: its URL, its project's wait slots, its SMTP. */
export function mcpHelpers(server: SuiteServer) {
  async function httpClient(apiKey: string, url = server.url): Promise<Client> {
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
    return client;
  }

  /**
   * Whether the suite's project holds a blocking wait on the server: a probe asking for a slot
   * with an allowance of one is refused only then (the project's own allowance is 100, so the
   * probe's brief slot never stands in a tool's way).
   */
  async function aWaitHeld(on: SuiteServer = server): Promise<boolean> {
    const slot = await on.running.context.messaging!.slots.acquire(server.project.projectId, 1);
    await slot?.release();
    return slot === null;
  }

  /** Resolves once the server (`on`) holds the project's wait (see aWaitHeld). */
  const aWaitIsHeld = (on: SuiteServer = server) => eventually(async () => ((await aWaitHeld(on)) ? true : null), { what: "the tool's wait held by the server", timeoutMs: 30_000 });

  /** Starts a blocking wait_for_message, sends a sign-up mail once the server holds it, and checks it answered only after the send. */
  async function waitThenSend(client: Client, inbox: string, held: () => Promise<unknown> = aWaitIsHeld): Promise<string> {
    const subject = `Welcome ${uniqueRunId("s")}`;
    let settled = false;
    const waiting = call(client, "wait_for_message", { inbox, subject_contains: "welcome", timeout_ms: 30_000 }).finally(() => (settled = true));
    await held();
    expect(settled).toBe(false);
    await server.send(signup(inbox, subject));
    const { text, isError } = await waiting;
    expect(isError).toBe(false);
    expect(text).toContain(`Subject: ${subject}`);
    expect(text).toContain("Codes: 482913");
    expect(text).toContain(`in inbox ${inbox}`);
    expect(text).toContain("From: noreply@acme.example");
    return text;
  }

  return { httpClient, aWaitHeld, aWaitIsHeld, waitThenSend };
}
