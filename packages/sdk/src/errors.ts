import type { ErrorCode, ErrorEnvelope, WaitTimeout } from "./types.js";

type Details = NonNullable<ErrorEnvelope["error"]["details"]>;

/**
 * A failure reported by mailstop (its error envelope), or a failure to reach it (`code`
 * `network_error`, retryable). Branch on `code` and `retryable`, never on `message` or `status`.
 */
export class MailstopError extends Error {
  override readonly name = "MailstopError";
  /** The envelope's code, or `network_error` when no answer arrived. */
  readonly code: ErrorCode | "network_error";
  /** Whether the same request may succeed later. */
  readonly retryable: boolean;
  /** The envelope's `details`, when present. */
  readonly details: Details | undefined;
  /** The `x-request-id` of the answer (quote it when reporting a problem); undefined without one. */
  readonly requestId: string | undefined;
  /** The HTTP status, or 0 when no answer arrived. */
  readonly status: number;
  /** Seconds the server asked to wait before retrying (429, `domain_not_verified`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    code: ErrorCode | "network_error";
    reason: string;
    retryable: boolean;
    status: number;
    details?: Details | undefined;
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(init.reason, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.retryable = init.retryable;
    this.status = init.status;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** The error of a failed answer: its envelope, or an `internal` error when the body is not one (a proxy's page). */
  static fromResponse(response: Response, body: unknown): MailstopError {
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const envelope = (body as Partial<ErrorEnvelope> | undefined)?.error;
    if (envelope !== undefined && typeof envelope === "object" && typeof envelope.code === "string") {
      return new MailstopError({
        code: envelope.code,
        reason: envelope.reason ?? envelope.code,
        retryable: envelope.retryable === true,
        status: response.status,
        details: envelope.details,
        requestId,
        retryAfterSeconds: envelope.retry_after_seconds ?? retryAfterHeader(response),
      });
    }
    return new MailstopError({
      code: "internal",
      reason: `HTTP ${response.status} without an error envelope`,
      retryable: response.status >= 500,
      status: response.status,
      requestId,
      retryAfterSeconds: retryAfterHeader(response),
    });
  }

  /**
   * No answer arrived from `url` (refused connection, reset, DNS). The reason names the origin
   * and the system's code (`ECONNREFUSED`, `ENOTFOUND`…), which fetch hides behind its own
   * "fetch failed": every surface on the SDK (the CLI, the MCP tools) shows it as it is.
   */
  static network(cause: unknown, url: string): MailstopError {
    return new MailstopError({ code: "network_error", reason: `Could not reach mailstop at ${new URL(url).origin} (${networkCause(cause)})`, retryable: true, status: 0, cause });
  }
}

/** Why fetch failed: the system error's code under its "fetch failed", else the nearest message. */
function networkCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof inner?.code === "string") return inner.code;
  if (typeof inner?.message === "string" && inner.message !== "") return inner.message;
  return cause instanceof Error ? cause.message : String(cause);
}

function retryAfterHeader(response: Response): number | undefined {
  const value = Number(response.headers.get("retry-after") ?? Number.NaN);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * `messages.waitFor` ended without a match. A wait timeout is a successful answer of the API
 * (HTTP 200, `status: "timeout"`); this error carries that report, `hint` first: it names the
 * likely faulty predicate.
 */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
  readonly hint: string;
  readonly waitedMs: number;
  readonly nonMatchingArrivals: number;
  /** The inbox waited on, as the server names it (its address). */
  readonly inbox: string;
  readonly requestId: string | undefined;
  /** The whole timeout report, as the API returned it. */
  readonly result: WaitTimeout;

  constructor(result: WaitTimeout, requestId?: string) {
    super(`no matching message within ${result.waited_ms} ms: ${result.hint}`);
    this.hint = result.hint;
    this.waitedMs = result.waited_ms;
    this.nonMatchingArrivals = result.non_matching_arrivals;
    this.inbox = result.inbox;
    this.requestId = requestId ?? result.request_id;
    this.result = result;
  }

  /** Snake-case aliases, as the API names them. */
  get waited_ms(): number {
    return this.waitedMs;
  }
  get non_matching_arrivals(): number {
    return this.nonMatchingArrivals;
  }
}
