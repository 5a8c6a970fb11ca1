import { methodNotAllowed } from "@mailstop/core";
import { type ApiKeyLookup, type HttpContribution, authenticate, bearerToken, rethrowBodyError } from "@mailstop/http";

/**
 * `POST /mcp`: the MCP tools over streamable HTTP, stateless (docs/decisions.md "MCP server").
 * Outside the OpenAPI document like /health: it is a protocol endpoint, not an API operation.
 * The caller's key is checked here (an unknown key is 401 in the error envelope, before any
 * MCP framing), then each tool call goes through the REST API with that same key, to
 * `origins()` (the wait to its own origin), so scopes, rate classes (the wait exempt) and
 * allowances apply unchanged. The MCP SDK is loaded on the first call (≈ 7 MB of the
 * process's memory that a mailstop no agent talks to never needs).
 */
export function mountMcp(
  app: Parameters<NonNullable<HttpContribution["setup"]>>[0],
  options: { keys: ApiKeyLookup; region: "us" | "eu"; origins: () => { api: string; wait: string } },
): void {
  app.post("/mcp", async (req, res, next) => {
    try {
      // Any scope will do: each tool's REST call checks the scope its route needs.
      await authenticate(options.keys, req, { region: options.region, requiredScope: null });
      rethrowBodyError(res);
      const { handleMcpRequest, mailstopApi } = require("@mailstop/mcp") as typeof import("@mailstop/mcp");
      const { api, wait } = options.origins();
      await handleMcpRequest(req, res, req.body, mailstopApi({ baseUrl: api, waitUrl: wait, apiKey: bearerToken(req) }));
    } catch (error) {
      next(error);
    }
  });
  // Stateless: no stream to open (GET) and no session to end (DELETE). MCP clients read 405 as
  // "not offered"; the unknown-route 404 would fail their connection.
  app.all("/mcp", (req, res, next) => {
    res.setHeader("Allow", "POST");
    next(methodNotAllowed(req.method, "/mcp", "POST"));
  });
}
