import { type Http, unwrap } from "../http.js";
import type { QueryOf, Schemas } from "../types.js";

/** Usage and limits of the current billing period. */
export class Usage {
  constructor(private readonly http: Http) {}

  get(): Promise<Schemas["Usage"]> {
    return unwrap(this.http.api.GET("/v1/usage"));
  }
}

/** The project's audit trail. */
export class Audit {
  constructor(private readonly http: Http) {}

  /** One page of audit events, newest first (filter by `action`, `since`, `until`). */
  list(query: QueryOf<"listAuditEvents"> = {}): Promise<Schemas["AuditEventList"]> {
    return unwrap(this.http.api.GET("/v1/audit-events", { params: { query } }));
  }
}

/** Declarative provisioning of every inbox a test run needs. */
export class Fixtures {
  constructor(private readonly http: Http) {}

  /** Creates or reuses one inbox per fixture; check `status` (`ready`, `partial`, `failed`) before relying on them. */
  ensure(request: Schemas["FixturesRequest"]): Promise<Schemas["FixturesResult"]> {
    return unwrap(this.http.api.POST("/v1/fixtures/ensure", { body: request }));
  }
}

/** Retention settings and data-subject erasure. */
export class Compliance {
  constructor(private readonly http: Http) {}

  retention(): Promise<Schemas["Retention"]> {
    return unwrap(this.http.api.GET("/v1/retention"));
  }

  /** Erases every message of the project sent from or to `address`. Not recoverable. */
  erase(address: string): Promise<Schemas["ErasureResult"]> {
    return unwrap(this.http.api.POST("/v1/erasure", { body: { address } }));
  }
}

/** The key, and the service's unauthenticated routes. */
export class Meta {
  constructor(private readonly http: Http) {}

  /** The key's project and scopes; a mismatch with an expectation fails with 403. */
  checkAuth(expect: QueryOf<"checkAuth"> = {}): Promise<Schemas["AuthCheck"]> {
    return unwrap(this.http.api.GET("/v1/auth/check", { params: { query: expect } }));
  }

  health(): Promise<Schemas["Health"]> {
    return unwrap(this.http.api.GET("/health"));
  }

  /** The OpenAPI 3.1 document of the public API. */
  openApi(): Promise<Record<string, unknown>> {
    return unwrap(this.http.api.GET("/openapi.json"));
  }

  /** The rendered API reference page (HTML). */
  docs(): Promise<string> {
    return unwrap(this.http.api.GET("/docs", { parseAs: "text" })) as Promise<string>;
  }

  /** The abuse contact document (`/.well-known/service-abuse`). */
  abuse(): Promise<Schemas["AbuseDocument"]> {
    return unwrap(this.http.api.GET("/.well-known/service-abuse"));
  }

  /** Published articles, newest first, without bodies. */
  articles(): Promise<Schemas["ArticleList"]> {
    return unwrap(this.http.api.GET("/content/v1/articles"));
  }

  /** One published article, its Markdown rendered to sanitised HTML. */
  article(slug: string): Promise<Schemas["Article"]> {
    return unwrap(this.http.api.GET("/content/v1/articles/{slug}", { params: { path: { slug } } }));
  }
}
