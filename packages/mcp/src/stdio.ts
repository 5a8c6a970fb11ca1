import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { mailstopApi } from "./api";
import { createMcpServer } from "./tools";

/**
 * `mailstop mcp`: the tools over stdio, for an agent host that spawns the server. Each tool
 * call is a REST call to `apiUrl` with `apiKey`, like any other client's. Resolves when stdin
 * closes (the host went away).
 */
export async function serveStdio(options: { apiUrl: string; apiKey: string }): Promise<void> {
  const server = createMcpServer(mailstopApi({ baseUrl: options.apiUrl, apiKey: options.apiKey }));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once("end", () => void server.close().then(resolve, resolve));
  });
  await server.connect(transport);
  await closed;
}
