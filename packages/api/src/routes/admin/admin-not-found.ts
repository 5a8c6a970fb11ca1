import { MailstopError } from "@mailstop/core";

/**
 * An admin path naming a missing organisation or key. The code set has no code for these,
 * so they are `invalid_request` with HTTP 404, like an unknown route; missing projects use
 * `project_not_found`.
 */
export function adminNotFound(what: string, id: string): MailstopError {
  return new MailstopError("invalid_request", `No ${what} ${id}.`, { status: 404, details: { [`${what.replace(/ /g, "_")}_id`]: id } });
}

export function projectNotFound(id: string): MailstopError {
  return new MailstopError("project_not_found", `No project ${id}.`);
}
