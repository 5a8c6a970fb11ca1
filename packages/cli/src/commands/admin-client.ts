import createClient, { type Client } from "openapi-fetch";
import type { AdminPaths } from "@mailstop/openapi";

export type AdminClient = Client<AdminPaths>;

/**
 * The operator's typed client of the admin API (`/admin/v1`, docs/operator.md "The admin API"):
 * openapi-fetch over the generated types, without retries (a bootstrap must not run twice).
 * The CLI's own, not `@mailstop/client`'s: that one is the test suites' raw driver, which no
 * user-facing surface depends on, and the SDK covers the public API only.
 */
export function createAdminClient(options: { baseUrl: string; adminToken: string }): AdminClient {
  return createClient<AdminPaths>({ baseUrl: options.baseUrl, headers: { Authorization: `Bearer ${options.adminToken}` } });
}
