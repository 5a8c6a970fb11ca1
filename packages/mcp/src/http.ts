import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { MailstopApi } from "./api";
import { createMcpServer } from "./tools";

/**
 * Serves one `POST /mcp` request (streamable HTTP, stateless: no session, a server and a
 * transport per request) with the tools over `api`, already bound to the caller's key.
 * `parsedBody` is the JSON body the host's body parser read.
 */
export async function handleMcpRequest(req: IncomingMessage, res: ServerResponse, parsedBody: unknown, api: MailstopApi): Promise<void> {
  const server = createMcpServer(api);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // The client went away (or the answer is sent): abort the tool calls still running, which
  // ends a blocking wait's request and frees its concurrency slot.
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsedBody);
}
