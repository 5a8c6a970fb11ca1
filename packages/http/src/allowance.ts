import { limitError } from "@mailstop/core";
import type { AuthContext } from "./auth-context";

/**
 * The message reads a spent allowance refuses (docs/api.md "Allowances and organisation
 * limits"). The blocking wait is one too, but it is not listed: it decides in its handler,
 * because a wait whose match is already stored still returns it ("existing matches remain
 * readable", see wait.route.ts), and only a wait with nothing stored to return gets the 402.
 */
const MESSAGE_READS: ReadonlySet<string> = new Set(["listMessages", "getMessage", "getMessageBody", "getMessageChecks", "checkMessageLinks", "getAttachment", "streamInboxEvents"]);

/**
 * Refuses the request with 402 when its project has spent a limit: the project's own
 * allowance refuses message reads (`quota_exceeded`); an organisation limit refuses message
 * reads and every write (`organisation_limit_exceeded`, by the document's `x-rate-class`).
 * Everything else (`GET /v1/usage`, the auth check, inbox and domain reads) always answers.
 * It costs nothing: the spent state came with the key's own query (findApiKeyByHash).
 */
export function enforceAllowance(auth: AuthContext | null, operation: { operationId: string; rateClass: string | undefined }): void {
  const spent = auth?.spentLimit;
  if (!spent) return;
  if (MESSAGE_READS.has(operation.operationId) || (spent.scope === "organisation" && operation.rateClass === "write")) throw limitError(spent);
}
