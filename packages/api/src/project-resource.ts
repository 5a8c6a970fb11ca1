import { MailstopError, isId } from "@mailstop/core";

/** A project's resources found by id whose absence is `<kind>_not_found` "on this project". */
type ResourceKind = "domain" | "webhook";

/** `<kind>_not_found` for `reference`: also what another project's resource answers, which stays invisible. */
export const notFoundOnProject = (kind: ResourceKind, reference: string) =>
  new MailstopError(`${kind}_not_found`, `No ${kind} ${reference} on this project.`, { details: { [`${kind}_id`]: reference } });

/** What `find` finds of the project by `id`, or `<kind>_not_found`; an id not of that kind is never looked up. */
export async function requireOnProject<T>(kind: ResourceKind, id: string, find: () => Promise<T | null>): Promise<T> {
  const found = isId(kind, id) ? await find() : null;
  if (found === null) throw notFoundOnProject(kind, id);
  return found;
}
