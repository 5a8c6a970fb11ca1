import { type Http, paginate, unwrap } from "../http.js";
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
  get(idOrAddress: string): Promise<Schemas["Inbox"]> {
    return unwrap(this.http.api.GET("/v1/inboxes/{id}", { params: { path: { id: idOrAddress } } }));
  }

  /** One page of the project's inboxes, newest first. */
  list(query: QueryOf<"listInboxes"> = {}): Promise<Schemas["InboxList"]> {
    return unwrap(this.http.api.GET("/v1/inboxes", { params: { query } }));
  }

  /** Every inbox matching `query`, page after page. */
  listAll(query: QueryOf<"listInboxes"> = {}): AsyncGenerator<Schemas["Inbox"]> {
    return paginate((q) => this.list(q), query);
  }

  /** Hard-deletes the inbox with its messages. */
  delete(idOrAddress: string): Promise<Schemas["InboxDeleted"]> {
    return unwrap(this.http.api.DELETE("/v1/inboxes/{id}", { params: { path: { id: idOrAddress } } }));
  }

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

  /** A short-lived token that opens only this inbox's event stream (for browsers), with a ready `stream_url`. */
  streamToken(idOrAddress: string): Promise<Schemas["StreamToken"]> {
    return unwrap(this.http.api.POST("/v1/inboxes/{id}/stream-token", { params: { path: { id: idOrAddress } } }));
  }
}
