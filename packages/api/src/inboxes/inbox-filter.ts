import { normaliseTag } from "@mailstop/core";
import type { InboxFilter } from "@mailstop/db";
import { type ValidationIssue, invalidRequest } from "@mailstop/openapi";

/**
 * The selectors shared by listing and cleanup. `tag_prefix` is lower-cased like tags on
 * write and must follow the tag grammar; `label_key` and `label_value` come together.
 */
export function inboxFilterFrom(input: { tag_prefix?: string; label_key?: string; label_value?: string }, location: "body" | "query"): InboxFilter {
  const issues: ValidationIssue[] = [];
  const filter: InboxFilter = {};
  if (input.tag_prefix !== undefined) {
    const prefix = normaliseTag(input.tag_prefix);
    if (prefix === null) issues.push({ in: location, path: "/tag_prefix", message: "must be dot-separated segments of a-z, 0-9, - and _" });
    else filter.tagPrefix = prefix;
  }
  if ((input.label_key === undefined) !== (input.label_value === undefined)) {
    const missing = input.label_key === undefined ? "label_key" : "label_value";
    issues.push({ in: location, path: `/${missing}`, message: "label_key and label_value are sent together" });
  } else if (input.label_key !== undefined && input.label_value !== undefined) {
    filter.label = { key: input.label_key, value: input.label_value };
  }
  if (issues.length > 0) invalidRequest(issues);
  return filter;
}
