import { type Http, onOne, unwrap } from "../http.js";
import type { QueryOf, Schemas } from "../types.js";

/** Webhook endpoints and their delivery-attempt log. */
export class Webhooks {
  constructor(private readonly http: Http) {}

  /** Registers an endpoint; the signing `secret` is in this answer (and rotateSecret's) only. Not retried. */
  create(body: Schemas["CreateWebhookRequest"]): Promise<Schemas["WebhookWithSecret"]> {
    return unwrap(this.http.api.POST("/v1/webhooks", { body }));
  }

  list(query: QueryOf<"listWebhooks"> = {}): Promise<Schemas["WebhookList"]> {
    return unwrap(this.http.api.GET("/v1/webhooks", { params: { query } }));
  }

  get(id: string): Promise<Schemas["Webhook"]> { return onOne(this.http, "get", "/v1/webhooks/{id}", id); }

  /** Changes the URL, events, description or `enabled`; absent fields stay as they are. */
  update(id: string, body: Schemas["UpdateWebhookRequest"]): Promise<Schemas["Webhook"]> {
    return unwrap(this.http.api.PATCH("/v1/webhooks/{id}", { params: { path: { id } }, body }));
  }

  delete(id: string): Promise<Schemas["Deleted"]> { return onOne(this.http, "delete", "/v1/webhooks/{id}", id); }

  /** A new secret; the old one keeps signing beside it for 24 hours. Not retried. */
  rotateSecret(id: string): Promise<Schemas["WebhookWithSecret"]> { return onOne(this.http, "post", "/v1/webhooks/{id}/rotate-secret", id); }

  /** Queues a signed `webhook.test` event to the endpoint. Not retried. */
  test(id: string): Promise<Schemas["WebhookTestResult"]> { return onOne(this.http, "post", "/v1/webhooks/{id}/test", id); }

  /** One page of the endpoint's delivery attempts, newest first. */
  attempts(id: string, query: QueryOf<"listWebhookAttempts"> = {}): Promise<Schemas["WebhookAttemptList"]> {
    return unwrap(this.http.api.GET("/v1/webhooks/{id}/attempts", { params: { path: { id }, query } }));
  }
}
