import { type Http, onOne, unwrap } from "../http.js";
import type { QueryOf, Schemas } from "../types.js";

/** Custom receiving domains: claim, check DNS, read, list, release. */
export class Domains {
  constructor(private readonly http: Http) {}

  /** Claims `domain` (state `pending`) and returns the DNS records to publish. Not retried: a repeat answers 409. */
  create(domain: string): Promise<Schemas["Domain"]> {
    return unwrap(this.http.api.POST("/v1/domains", { body: { domain } }));
  }

  list(query: QueryOf<"listDomains"> = {}): Promise<Schemas["DomainList"]> {
    return unwrap(this.http.api.GET("/v1/domains", { params: { query } }));
  }

  get(id: string): Promise<Schemas["Domain"]> { return onOne(this.http, "get", "/v1/domains/{id}", id); }

  /** Looks the DNS records up now: `verified`, or still `pending` with `last_check.missing`. */
  verify(id: string): Promise<Schemas["Domain"]> { return onOne(this.http, "post", "/v1/domains/{id}/verify", id); }

  /** Releases the claim (409 `conflict` while inboxes exist on it). */
  delete(id: string): Promise<Schemas["Deleted"]> { return onOne(this.http, "delete", "/v1/domains/{id}", id); }
}
