import type { TestProject, TestServer } from "@mailstop/testkit";

/** The rate limits' defaults: "" counts as unset, undoing the test servers' high limits. */
export const DEFAULTS = { MAILSTOP_RATE_LIMIT_READ: "", MAILSTOP_RATE_LIMIT_WRITE: "" };

/** A new project on `on` with the given per-key limits, set through the admin API. */
export async function limitedProject(on: TestServer, limits: { rate_limit_read?: number | null; rate_limit_write?: number | null }): Promise<TestProject> {
  const project = await on.bootstrap();
  const { error } = await on.admin.PATCH("/admin/v1/projects/{id}", { params: { path: { id: project.projectId } }, body: { limits } });
  if (error) throw new Error(`setting limits failed: ${JSON.stringify(error)}`);
  return project;
}
