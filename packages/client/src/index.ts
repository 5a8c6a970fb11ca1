import createClient, { type Client } from "openapi-fetch";
import type { AdminPaths, PublicComponents, PublicPaths } from "@mailstop/openapi";

export type MailstopClient = Client<PublicPaths>;
export type AdminClient = Client<AdminPaths>;
export type Schemas = PublicComponents["schemas"];
export type ErrorEnvelope = Schemas["Error"];

export interface ClientOptions {
  /** The API origin, e.g. http://localhost:8025. */
  baseUrl: string;
  /** An `is_test_…` or `is_live_…` key; omit to call meta routes or to test authentication. */
  apiKey?: string;
  fetch?: typeof fetch;
}

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}

/** A typed client of the public API, generated from its OpenAPI document. */
export function createMailstopClient(options: ClientOptions): MailstopClient {
  return createClient<PublicPaths>({
    baseUrl: options.baseUrl,
    headers: bearer(options.apiKey),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}

/** A typed client of the operator's admin API (docs/operator.md "The admin API"). */
export function createAdminClient(options: { baseUrl: string; adminToken?: string; fetch?: typeof fetch }): AdminClient {
  return createClient<AdminPaths>({
    baseUrl: options.baseUrl,
    headers: bearer(options.adminToken),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}
