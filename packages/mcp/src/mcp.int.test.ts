import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { eventually, expectError, freePort, uniqueRunId, uniqueTag, useTestServer } from "@mailstop/testkit";
import { call, mcpHelpers } from "./mcp.fixture";

// The MCP server end to end, with the MCP SDK's own client, over both transports: `POST /mcp`
// on the server and `mailstop mcp` spawned as agents spawn it. Real SMTP sends, real waits.

const server = useTestServer({ mail: true });
const CLI = resolve(__dirname, "../../cli/bin/mailstop.cjs");
const TOOLS = ["create_inbox", "get_latest_code", "get_link", "get_message", "inbox_for_run", "list_messages", "wait_for_message"];
const { httpClient, aWaitHeld, aWaitIsHeld, waitThenSend } = mcpHelpers(server);

async function stdioClient(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const { PATH = "" } = process.env;
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], env: { PATH, ...env }, stderr: "pipe" }));
  return client;
}

describe("POST /mcp (streamable HTTP)", () => {
  let client: Client;
  beforeAll(async () => {
    client = await httpClient(server.apiKey);
  });
  afterAll(() => client?.close());

  it("lists exactly the seven tools of docs/decisions.md (MCP server) with their arguments", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema;
    const shape = (name: string) => ({ properties: Object.keys(schema(name).properties ?? {}).sort(), required: schema(name).required ?? [] });
    expect(shape("create_inbox")).toEqual({ properties: ["domain", "tag"], required: [] });
    expect(shape("inbox_for_run")).toEqual({ properties: ["run_id"], required: ["run_id"] });
    expect(shape("wait_for_message")).toEqual({
      properties: ["body_contains", "from_contains", "inbox", "subject_contains", "timeout_ms", "to_contains"],
      required: ["inbox"],
    });
    expect(shape("list_messages")).toEqual({ properties: ["inbox", "limit"], required: ["inbox"] });
    expect(shape("get_message")).toEqual({ properties: ["id"], required: ["id"] });
    expect(shape("get_latest_code")).toEqual({ properties: ["inbox"], required: ["inbox"] });
    expect(shape("get_link")).toEqual({ properties: ["inbox", "kind"], required: ["inbox"] });
    expect(schema("get_link").properties!.kind).toMatchObject({ enum: ["verify", "sign_in", "unsubscribe", "reset_password", "other"] });
  });

  it("creates an inbox, blocks a wait until mail arrives, then reads its code, links and list", async () => {
    const tag = uniqueTag("mcp");
    const created = await call(client, "create_inbox", { tag });
    expect(created.isError).toBe(false);
    const address = `${server.project.projectKey}.${tag}@${server.config.sharedDomain}`;
    expect(created.text).toContain(`inbox ${address}`);

    const found = await waitThenSend(client, address);
    const id = /Message (msg_\w+)/.exec(found)![1]!;

    expect((await call(client, "get_latest_code", { inbox: address })).text).toMatch(/^Code: 482913\n/);
    expect((await call(client, "get_link", { inbox: address, kind: "verify" })).text).toMatch(/^Link \(verify\): https:\/\/app\.example\/verify\?t=abc\n/);
    // Without a kind, the first link that is not an unsubscribe link.
    expect((await call(client, "get_link", { inbox: address })).text).toMatch(/^Link \(verify\): /);
    expect((await call(client, "get_link", { inbox: address, kind: "unsubscribe" })).text).toMatch(/^Link \(unsubscribe\): https:\/\/app\.example\/unsubscribe\n/);
    expect((await call(client, "get_link", { inbox: address, kind: "reset_password" })).text).toMatch(/^No message with a reset_password link/);

    const message = await call(client, "get_message", { id });
    expect(message.text).toContain("Preview: Your verification code is 482913.");
    expect(message.text).toContain("[verify] https://app.example/verify?t=abc");
    // The four checks by name: no signature and no policy (authentication none), a text-only
    // mail (html none), no link checked yet, no spamd configured.
    expect(message.text).toMatch(/^Checks: authentication none, html none, links not_checked, spam not_configured$/m);
    const list = await call(client, "list_messages", { inbox: address, limit: 5 });
    expect(list.text).toContain(`- ${id} `);
    expect(list.text).toContain("codes 482913");
  });

  it("answers a timeout with the server's hint, not an error", async () => {
    const inbox = (await call(client, "inbox_for_run", { run_id: uniqueRunId("quiet") })).text;
    const address = /inbox (\S+@\S+) /.exec(inbox)![1]!;
    const { text, isError } = await call(client, "wait_for_message", { inbox: address, timeout_ms: 500 });
    expect(isError).toBe(false);
    expect(text).toMatch(/^Timed out after \d+ ms: no message matched in inbox /);
    expect(text).toContain(`Hint: Nothing arrived at ${address}`);
  });

  it("returns API errors as tool errors with their code and reason", async () => {
    const missing = await call(client, "get_message", { id: "msg_01jdq4aaaaaaaaaaaaaaaaaaaa" });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toMatch(/^Error message_not_found: /);
    const noInbox = await call(client, "wait_for_message", { inbox: `nobody.${uniqueTag()}@${server.config.sharedDomain}`, timeout_ms: 500 });
    expect(noInbox).toMatchObject({ isError: true });
    expect(noInbox.text).toMatch(/^Error inbox_not_found: /);
    const badTag = await call(client, "create_inbox", { tag: "Not A Tag" });
    expect(badTag).toMatchObject({ isError: true });
    expect(badTag.text).toContain("Error invalid_request: ");
    // Arguments outside the tool's schema are refused by the MCP server itself, also as a tool error.
    expect(await call(client, "wait_for_message", { inbox: "x", timeout_ms: 999_999 })).toMatchObject({ isError: true });
  });

  it("a key without the wait's scope gets insufficient_scope from the tool, as from the route", async () => {
    const readOnly = await server.bootstrap({ scopes: ["inboxes:read", "inboxes:write"] });
    const scoped = await httpClient(readOnly.apiKey);
    try {
      const inbox = await readOnly.client.POST("/v1/inboxes", { body: { tag: uniqueTag() } });
      const { text, isError } = await call(scoped, "wait_for_message", { inbox: inbox.data!.id, timeout_ms: 500 });
      expect(isError).toBe(true);
      expect(text).toMatch(/^Error insufficient_scope: /);
    } finally {
      await scoped.close();
    }
  });

  it("refuses an unknown or missing key with 401 in the error envelope", async () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
    const headers = { accept: "application/json, text/event-stream" };
    expectError(await server.request("POST", "/mcp", { body: initialize, headers, apiKey: "is_test_unknownunknownunknownunknown" }), { status: 401, code: "invalid_api_key", retryable: false });
    expectError(await server.request("POST", "/mcp", { body: initialize, headers, apiKey: null }), { status: 401, code: "unauthenticated", retryable: false });
    await expect(httpClient("is_test_unknownunknownunknownunknown")).rejects.toThrow();
  });

  it("ends the tool's wait when its client goes away, giving the concurrency slot back", async () => {
    const inbox = await server.createInbox({ tag: uniqueTag("leave") });
    const leaving = new AbortController();
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait_for_message", arguments: { inbox: inbox.address, timeout_ms: 120_000 } } };
    const request = fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(call),
      signal: leaving.signal,
    }).then((response) => response.text());
    await aWaitIsHeld();
    leaving.abort();
    await expect(request).rejects.toThrow();
    // Freed long before the wait's 120 s.
    await eventually(async () => ((await aWaitHeld()) ? null : true), { what: "the wait's slot released", timeoutMs: 30_000 });
  });

  it("answers GET /mcp with 405 (stateless: no stream to open), so clients carry on", async () => {
    const response = await server.request("GET", "/mcp");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.json).toMatchObject({ error: { code: "invalid_request" } });
  });
});

describe("mailstop mcp (stdio)", () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioClient({ MAILSTOP_API_URL: server.url, MAILSTOP_API_KEY: server.apiKey });
  }, 60_000);
  afterAll(() => client?.close());

  it("serves the same tools against MAILSTOP_API_URL with MAILSTOP_API_KEY", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const run = await call(client, "inbox_for_run", { run_id: uniqueRunId("stdio") });
    const address = /inbox (\S+@\S+) /.exec(run.text)![1]!;
    await waitThenSend(client, address);
    expect((await call(client, "get_latest_code", { inbox: address })).text).toMatch(/^Code: 482913\n/);
    expect((await call(client, "get_link", { inbox: address, kind: "verify" })).text).toContain("https://app.example/verify?t=abc");
  });

  it("answers a timeout with the hint over stdio too", async () => {
    const run = await call(client, "inbox_for_run", { run_id: uniqueRunId("stdio-quiet") });
    const address = /inbox (\S+@\S+) /.exec(run.text)![1]!;
    expect((await call(client, "wait_for_message", { inbox: address, timeout_ms: 300 })).text).toContain("Hint: Nothing arrived");
  });

  it("turns a bad key into tool errors naming invalid_api_key", async () => {
    const bad = await stdioClient({ MAILSTOP_API_URL: server.url, MAILSTOP_API_KEY: "is_test_unknownunknownunknownunknown" });
    try {
      const { text, isError } = await call(bad, "create_inbox", {});
      expect(isError).toBe(true);
      expect(text).toMatch(/^Error invalid_api_key: /);
    } finally {
      await bad.close();
    }
  }, 60_000);
});

describe("mailstop mcp without a server", () => {
  it("answers each call with a retryable internal error naming the URL it could not reach", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const client = await stdioClient({ MAILSTOP_API_URL: url, MAILSTOP_API_KEY: "is_test_unknownunknownunknownunknown" });
    try {
      const { text, isError } = await call(client, "list_messages", { inbox: "ibx_x" });
      expect(isError).toBe(true);
      expect(text).toContain(`Error internal: Could not reach mailstop at ${url} (ECONNREFUSED)`);
      expect(text).toContain("Retryable: yes");
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("POST /mcp under rate limits", () => {
  // One write and one read per second (bursts of two): the tools' REST calls count against the
  // key's buckets as a client's would; the wait is exempt; POST /mcp itself takes no token.
  // The monolith: the api and the waiter its wait tool loops back to, in one process.
  const limited = useTestServer({ target: "all", env: { MAILSTOP_RATE_LIMIT_WRITE: "1", MAILSTOP_RATE_LIMIT_READ: "1" } });

  it("refuses writes and reads past the key's rate as tool errors, never the wait", async () => {
    const client = await httpClient(limited.apiKey, limited.url);
    try {
      for (let i = 0; i < 5; i++) await client.listTools();
      // Until the bucket (two tokens, one more a second) runs dry: the third call in a row, unless the machine is slow.
      const untilRefused = async (name: string, args: Record<string, unknown>) => {
        const answers: Awaited<ReturnType<typeof call>>[] = [];
        for (let i = 0; i < 10 && !answers.some((a) => a.isError); i++) answers.push(await call(client, name, args));
        return answers;
      };
      const creates = await untilRefused("create_inbox", {});
      expect(creates.at(-1)!.text).toMatch(/^Error rate_limited: [^]*Retry after: \d+ s/);
      const address = /inbox (\S+@\S+) /.exec(creates[0]!.text)![1]!;
      const lists = await untilRefused("list_messages", { inbox: address });
      expect(lists.at(-1)!.text).toMatch(/^Error rate_limited: /);
      // The first list was answered after a dozen POST /mcp: those took no read token.
      expect(lists[0]).toMatchObject({ isError: false });

      for (let i = 0; i < 4; i++) {
        const waited = await call(client, "wait_for_message", { inbox: address, timeout_ms: 1 });
        expect(waited).toMatchObject({ isError: false });
        expect(waited.text).toMatch(/^Timed out/);
      }
    } finally {
      await client.close();
    }
  });
});
