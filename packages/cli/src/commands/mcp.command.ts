import { Command } from "commander";
import type { ClientConfig } from "@mailstop/config";

/**
 * `mailstop mcp`: the MCP server over stdio (docs/decisions.md "MCP server"), calling the API at
 * MAILSTOP_API_URL with MAILSTOP_API_KEY. stdout carries the protocol only; anything said to a
 * human goes to stderr.
 */
export function mcpCommand(loadClientConfig: () => ClientConfig): Command {
  return new Command("mcp")
    .description("serve mailstop's tools to an AI agent over MCP (stdio), using MAILSTOP_API_URL and MAILSTOP_API_KEY")
    .action(async () => {
      const config = loadClientConfig();
      if (config.apiKey === null) throw new Error("MAILSTOP_API_KEY is not set: the MCP server calls the API with it (pnpm start prints the local project's key).");
      // Loaded here, not at the top: `mailstop --help` and the other commands need no MCP SDK.
      // require, not import(), as in serve: tsx's require hook compiles the .ts sources.
      const { serveStdio } = require("@mailstop/mcp") as typeof import("@mailstop/mcp");
      await serveStdio({ apiUrl: config.apiUrl, apiKey: config.apiKey });
    });
}
