import { captureTagOf } from "../capture-tag.js";
import { type Http, onOne, paginate, unwrap } from "../http.js";
import type { QueryOf, Schemas } from "../types.js";

/** Inboxes: create (idempotent on the address), a run's inbox, read, list, delete, clean up. */
export class Inboxes {
  constructor(private readonly http: Http) {}

  /** Creates `<project_key>.<tag>@<shared domain>` (or `<tag>@<domain>`); the same tag returns the same inbox. */
  create(body: Schemas["CreateInboxRequest"]): Promise<Schemas["Inbox"]> {
    return unwrap(this.http.api.POST("/v1/inboxes", { body }));
  }

  /** The deterministic inbox of a run: the same `runId` always gives the same address. */
  forRun(runId: string, options: Omit<Schemas["InboxForRunRequest"], "run_id"> = {}): Promise<Schemas["Inbox"]> {
    return unwrap(this.http.api.POST("/v1/inboxes/for-run", { body: { ...options, run_id: runId } }));
  }

  /** An inbox by id (`ibx_…`) or address. */
  get(idOrAddress: string): Promise<Schemas["Inbox"]> { return onOne(this.http, "get", "/v1/inboxes/{id}", idOrAddress); }

  /** One page of the project's inboxes, newest first. */
  list(query: QueryOf<"listInboxes"> = {}): Promise<Schemas["InboxList"]> {
    return unwrap(this.http.api.GET("/v1/inboxes", { params: { query } }));
  }

  /** Every inbox matching `query`, page after page. */
  listAll(query: QueryOf<"listInboxes"> = {}): AsyncGenerator<Schemas["Inbox"]> {
    return paginate((q) => this.list(q), query);
  }

  /** Hard-deletes the inbox with its messages. */
  delete(idOrAddress: string): Promise<Schemas["InboxDeleted"]> { return onOne(this.http, "delete", "/v1/inboxes/{id}", idOrAddress); }

  /** Deletes up to 200 inboxes matching every selector; repeat until `inboxes_deleted` is 0 (or use {@link cleanupAll}). */
  cleanup(selectors: Schemas["CleanupRequest"]): Promise<Schemas["CleanupResult"]> {
    return unwrap(this.http.api.POST("/v1/inboxes/cleanup", { body: selectors }));
  }

  /** Cleans up until nothing matches; returns how many inboxes were deleted in all. */
  async cleanupAll(selectors: Schemas["CleanupRequest"]): Promise<number> {
    let total = 0;
    for (;;) {
      const { inboxes_deleted } = await this.cleanup(selectors);
      if (inboxes_deleted === 0) return total;
      total += inboxes_deleted;
    }
  }

  /**
   * The capture inbox the relay files mail for `recipient` under (mail your application sends
   * through the capture relay to `newuser@example.com` lands in
   * `<project_key>.capture.example.com.newuser@<shared domain>`): wait on this address, not on the
   * recipient's. Reads the key's project and the shared domain (two calls, made once per client);
   * creates nothing.
   */
  async captureAddressOf(recipient: string): Promise<string> {
    const tag = captureTagOf(recipient);
    if (tag === null) throw new RangeError(`"${recipient}" cannot name a capture inbox: it needs a local part, an @ and a domain`);
    const { projectKey, sharedDomain } = await (this.#addressing ??= this.readAddressing());
    return `${projectKey}.${tag}@${sharedDomain}`;
  }

  #addressing: Promise<{ projectKey: string; sharedDomain: string }> | undefined;

  private async readAddressing(): Promise<{ projectKey: string; sharedDomain: string }> {
    try {
      const [auth, abuse] = await Promise.all([
        unwrap(this.http.api.GET("/v1/auth/check", { params: { query: {} } })),
        unwrap(this.http.api.GET("/.well-known/service-abuse")),
      ]);
      return { projectKey: auth.project.key, sharedDomain: abuse.receiving.shared_inbox_domain };
    } catch (error) {
      // A failed read is not kept: the next call asks again.
      this.#addressing = undefined;
      throw error;
    }
  }

  /** A short-lived token that opens only this inbox's event stream (for browsers), with a ready `stream_url`. */
  streamToken(idOrAddress: string): Promise<Schemas["StreamToken"]> { return onOne(this.http, "post", "/v1/inboxes/{id}/stream-token", idOrAddress); }
}
