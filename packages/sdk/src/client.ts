import { type MailstopOptions, resolveOptions } from "./config.js";
import { type Http, createHttp } from "./http.js";
import { Inboxes } from "./resources/inboxes.js";
import { Messages } from "./resources/messages.js";
import { Domains } from "./resources/domains.js";
import { Webhooks } from "./resources/webhooks.js";
import { Audit, Compliance, Fixtures, Meta, Usage } from "./resources/project.js";
import { type StreamOptions, streamInbox } from "./resources/stream.js";
import type { StreamMessage } from "./types.js";

/**
 * The mailstop client. Configured by its options, else by `MAILSTOP_API_URL` (default
 * http://localhost:8025) and `MAILSTOP_API_KEY`. Every failure is a {@link MailstopError};
 * idempotent calls are retried on 429, 503 and lost connections, honouring `retry_after_seconds`.
 *
 * ```ts
 * const mailstop = new Mailstop();
 * const inbox = await mailstop.inboxes.create({ tag: "signup.run-42" });
 * const message = await mailstop.messages.waitFor(inbox.id, { subject_contains: "Verify" });
 * ```
 */
export class Mailstop {
  readonly inboxes: Inboxes;
  readonly messages: Messages;
  readonly domains: Domains;
  readonly webhooks: Webhooks;
  readonly usage: Usage;
  readonly audit: Audit;
  readonly fixtures: Fixtures;
  /** Retention settings and erasure. */
  readonly compliance: Compliance;
  /** The key check and the unauthenticated routes (health, OpenAPI, abuse document, articles). */
  readonly meta: Meta;
  /** The resolved origin (after options and environment). */
  readonly baseUrl: string;
  readonly #http: Http;

  constructor(options: MailstopOptions = {}) {
    const http = createHttp(resolveOptions(options));
    this.#http = http;
    this.baseUrl = http.options.baseUrl;
    this.inboxes = new Inboxes(http);
    this.messages = new Messages(http);
    this.domains = new Domains(http);
    this.webhooks = new Webhooks(http);
    this.usage = new Usage(http);
    this.audit = new Audit(http);
    this.fixtures = new Fixtures(http);
    this.compliance = new Compliance(http);
    this.meta = new Meta(http);
  }

  /**
   * The inbox's arrivals, as they come, resuming after dropped connections without gaps:
   * `for await (const message of mailstop.stream(inbox.id)) { … break; }`.
   */
  stream(inbox: string, options: StreamOptions = {}): AsyncGenerator<StreamMessage, void, undefined> {
    return streamInbox(this.#http, inbox, options);
  }
}
