import { PROJECT_KEY_PATTERN, TAG_PATTERN } from "./grammar";

/** The address of an inbox: `<project_key>.<tag>@<shared>` or `<tag>@<custom domain>`. */
export function inboxAddress(input: { projectKey: string; tag: string; domain: string | null; sharedDomain: string }): string {
  return input.domain === null ? `${input.projectKey}.${input.tag}@${input.sharedDomain}` : `${input.tag}@${input.domain}`;
}

export interface SharedAddress {
  projectKey: string;
  tag: string;
}

/**
 * Splits a shared-domain address into project key and tag, or null when it is not one.
 * The domain comparison is case-insensitive; the local part is lower-cased like tags.
 */
export function parseSharedAddress(address: string, sharedDomain: string): SharedAddress | null {
  const at = address.lastIndexOf("@");
  if (at < 0 || address.slice(at + 1).toLowerCase() !== sharedDomain.toLowerCase()) return null;
  const local = address.slice(0, at).toLowerCase();
  const dot = local.indexOf(".");
  if (dot < 0) return null;
  const projectKey = local.slice(0, dot);
  const tag = local.slice(dot + 1);
  return PROJECT_KEY_PATTERN.test(projectKey) && TAG_PATTERN.test(tag) ? { projectKey, tag } : null;
}

/** True when `value` looks like an email address rather than an id (it holds an `@`). */
export function looksLikeAddress(value: string): boolean {
  return value.includes("@");
}
