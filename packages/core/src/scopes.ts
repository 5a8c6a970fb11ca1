/** The exact scope set (docs/api.md "Scopes"). */
export const SCOPES = [
  "inboxes:read",
  "inboxes:write",
  "messages:read",
  "messages:wait",
  "messages:delete",
  "domains:read",
  "domains:write",
  "webhooks:read",
  "webhooks:write",
  "usage:read",
] as const;

export type Scope = (typeof SCOPES)[number];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}
