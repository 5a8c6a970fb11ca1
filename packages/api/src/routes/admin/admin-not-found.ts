import { MailstopError } from "@mailstop/core";

/** A missing project in an admin path: its own code, unlike a missing organisation or key (see adminNotFound in @mailstop/core). */
export function projectNotFound(id: string): MailstopError {
  return new MailstopError("project_not_found", `No project ${id}.`);
}
