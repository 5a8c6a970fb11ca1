import { WaitTimeoutError, MailstopError } from "../errors.js";
import { type Http, onOne, paginate, unwrap } from "../http.js";
import type { QueryOf, Schemas, WaitRequest, WaitResult } from "../types.js";

type BodyPart = "text" | "html" | "raw" | "headers";
type GetQuery = QueryOf<"getMessage">;

/** How long `waitFor` waits, and how much of each body part it previews. */
export interface WaitForOptions {
  /** Longest wait in milliseconds (default 120000, at most 285000): the one name across the SDK, the fixture and the CLI's `--timeout`. */
  timeoutMs?: number;
  /** @deprecated Use `timeoutMs` (the REST body's name; a deprecation warning is printed once). */
  timeout_ms?: number;
  /** Characters of each body preview (default 2000). */
  preview_chars?: number;
  /** Abandons the wait (the server frees its slot). */
  signal?: AbortSignal;
}

const warned = new Set<string>();

/** Once per process, as Node's own deprecations: a suite calling waitFor a thousand times warns once. */
function deprecated(name: string): void {
  if (warned.has(name)) return;
  warned.add(name);
  globalThis.process?.emitWarning?.(`waitFor's option "${name}" is deprecated: use "timeoutMs"`, { type: "DeprecationWarning", code: "MAILSTOP_TIMEOUT_MS" });
}

/** A timeout put among the match predicates would reach the server as an unknown predicate ("body/match/timeout_ms is not an allowed property"). */
function refuseTimeoutInMatch(match: object): void {
  for (const name of ["timeoutMs", "timeout_ms", "timeout"]) {
    if (Object.hasOwn(match, name)) throw new TypeError(`"${name}" is not a match predicate: pass the timeout as an option, waitFor(inbox, match, { timeoutMs })`);
  }
}

/** Messages: the blocking wait, lists, reads, whole body parts, attachments, checks, deletion. */
export class Messages {
  constructor(private readonly http: Http) {}

  /**
   * Blocks until a message matches or the wait times out, and returns the API's answer as it
   * is: `{ status: "matched", message }` or `{ status: "timeout", hint, … }`. Retried on
   * `concurrency_limit` (it only reads). `signal` abandons the wait (the server frees its slot).
   */
  wait(request: WaitRequest, options: { signal?: AbortSignal } = {}): Promise<WaitResult> {
    return unwrap(this.http.api.POST("/v1/messages/wait", { body: request as Schemas["WaitRequest"], ...options }));
  }

  /**
   * The matching message, or a {@link WaitTimeoutError} carrying the server's `hint`,
   * `waited_ms` and `non_matching_arrivals` when none matched in time.
   */
  async waitFor(inbox: string, match: Schemas["MessageMatch"] = {}, options: WaitForOptions = {}): Promise<Schemas["MessageView"]> {
    refuseTimeoutInMatch(match);
    const { signal, timeoutMs, timeout_ms, preview_chars } = options;
    if (timeout_ms !== undefined) deprecated("timeout_ms");
    const timeout = timeoutMs ?? timeout_ms;
    const request: WaitRequest = { inbox, match, ...(timeout === undefined ? {} : { timeout_ms: timeout }), ...(preview_chars === undefined ? {} : { preview_chars }) };
    const result = await this.wait(request, signal === undefined ? {} : { signal });
    if (result.status === "matched") return result.message;
    throw new WaitTimeoutError(result);
  }

  /** One page of messages, newest first, filtered like the wait (previews empty). */
  list(query: QueryOf<"listMessages"> = {}): Promise<Schemas["MessageList"]> {
    return unwrap(this.http.api.GET("/v1/messages", { params: { query } }));
  }

  /** Every message matching `query`, page after page. */
  listAll(query: QueryOf<"listMessages"> = {}): AsyncGenerator<Schemas["MessageList"]["data"][number]> {
    return paginate((q) => this.list(q), query);
  }

  /** One message with body previews (`format` adds html, raw or headers). */
  get(id: string, query: GetQuery = {}): Promise<Schemas["MessageView"]> {
    return unwrap(this.http.api.GET("/v1/messages/{id}", { params: { path: { id }, query } }));
  }

  /** A whole, untruncated body part as text (`raw` is the RFC 5322 source). */
  body(id: string, format: BodyPart = "text"): Promise<string> {
    return unwrap(this.http.api.GET("/v1/messages/{id}/body", { params: { path: { id }, query: { format } }, parseAs: "text" })) as Promise<string>;
  }

  /**
   * The short-lived signed URL of an attachment's bytes (the API answers with a redirect and
   * the bytes never pass through it). Fetch it without a key.
   */
  async attachmentUrl(id: string, attachmentId: string): Promise<string> {
    const { response, error } = await this.http.api.GET("/v1/messages/{id}/attachments/{attachmentId}", {
      params: { path: { id, attachmentId } },
      redirect: "manual",
    });
    const location = response.headers.get("location");
    // openapi-fetch has read the redirect's body already (it is not a 2xx).
    if (response.status >= 300 && response.status < 400 && location !== null) return new URL(location, this.http.options.baseUrl).toString();
    throw MailstopError.fromResponse(response, error);
  }

  /**
   * What mailstop checked of the message (docs/api.md "Message checks"): its authentication
   * (DKIM, SPF, DMARC, ARC), its HTML's support across mail clients, its links once
   * {@link checkLinks} has run, and its spam score when the server asks spamd.
   */
  checks(id: string): Promise<Schemas["MessageChecks"]> { return onOne(this.http, "get", "/v1/messages/{id}/checks", id); }

  /**
   * Checks the message's links now and returns the result, which {@link checks} returns from
   * then on. Each link has 5 s, four at a time, up to 50 links: about a minute at worst.
   */
  checkLinks(id: string): Promise<Schemas["LinkCheck"]> { return onOne(this.http, "post", "/v1/messages/{id}/checks/links", id); }

  /** Tombstones the message at once (gone from lists, waits and streams). */
  delete(id: string): Promise<Schemas["MessageErased"]> { return onOne(this.http, "delete", "/v1/messages/{id}", id); }
}
