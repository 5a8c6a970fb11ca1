/**
 * The closed set of error codes (docs/api.md "The error codes"; `ErrorCode` in openapi.yaml),
 * each with its HTTP status and whether a client may retry it unchanged. This table is the
 * only place a code meets a status.
 */
export const ERROR_TABLE = {
  unauthenticated: { status: 401, retryable: false },
  invalid_api_key: { status: 401, retryable: false },
  insufficient_scope: { status: 403, retryable: false },
  forbidden: { status: 403, retryable: false },
  inbox_not_found: { status: 404, retryable: false },
  message_not_found: { status: 404, retryable: false },
  attachment_not_found: { status: 404, retryable: false },
  domain_not_found: { status: 404, retryable: false },
  domain_not_verified: { status: 409, retryable: true },
  project_not_found: { status: 404, retryable: false },
  webhook_not_found: { status: 404, retryable: false },
  article_not_found: { status: 404, retryable: false },
  invalid_request: { status: 400, retryable: false },
  unsupported_format: { status: 400, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  conflict: { status: 409, retryable: false },
  quota_exceeded: { status: 402, retryable: false },
  organisation_limit_exceeded: { status: 402, retryable: true },
  rate_limited: { status: 429, retryable: true },
  concurrency_limit: { status: 429, retryable: true },
  blocked_recipient: { status: 403, retryable: false },
  abuse_suspended: { status: 403, retryable: false },
  ingest_ceiling_exceeded: { status: 429, retryable: true },
  storage_unavailable: { status: 503, retryable: true },
  internal: { status: 500, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_TABLE;
export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** Public detail keys clients may read; anything else stays internal. */
export type ErrorDetails = Record<string, unknown>;

export interface ErrorOptions {
  details?: ErrorDetails;
  retryAfterSeconds?: number;
  /** The underlying failure, for logs only; never serialised to the client. */
  cause?: unknown;
  /**
   * The server ends the request on purpose (a restart ending held waits): logged at info,
   * without a stack, instead of as a failure.
   */
  planned?: boolean;
}

/**
 * The one error type of mailstop. `reason` is public text; `cause` is internal.
 * Status and `retryable` come from {@link ERROR_TABLE}, never from the throw site; the few
 * answers whose status is not their code's are the named constructors at the end of this file.
 */
export class MailstopError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** See {@link ErrorOptions.planned}. */
  readonly planned: boolean;

  constructor(code: ErrorCode, reason: string, options: ErrorOptions = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MailstopError";
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.planned = options.planned ?? false;
  }

  get reason(): string {
    return this.message;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  get retryable(): boolean {
    return ERROR_TABLE[this.code].retryable;
  }
}

/** The wire envelope (docs/api.md "Errors"), shared by HTTP responses and stream `error` frames. */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    reason: string;
    retryable: boolean;
    details?: ErrorDetails;
    retry_after_seconds?: number;
  };
}

export function toEnvelope(error: MailstopError): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      reason: error.reason,
      retryable: error.retryable,
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(error.retryAfterSeconds === undefined ? {} : { retry_after_seconds: error.retryAfterSeconds }),
    },
  };
}

/** Any thrown value as a MailstopError: known ones pass through, the rest become `internal`. */
export function asMailstopError(thrown: unknown): MailstopError {
  if (thrown instanceof MailstopError) return thrown;
  return new MailstopError("internal", "An unexpected error occurred; retry the request.", { cause: thrown });
}

/** Seconds a client should wait before retrying `domain_not_verified` (docs/api.md "The error codes"). */
export const DOMAIN_VERIFY_RETRY_SECONDS = 60;

/**
 * A MailstopError answered with another HTTP status than its code's: the closed code set has
 * no code for "not here" or "not now" outside its resources. Not exported: only the named
 * constructors below make one, so every status that differs from the table is in this file.
 */
class StatusOverride extends MailstopError {
  readonly #status: number;

  constructor(status: number, code: ErrorCode, reason: string, options?: ErrorOptions) {
    super(code, reason, options);
    this.#status = status;
  }

  override get status(): number {
    return this.#status;
  }
}

/** GET /ready while modules of the target are not: 503 naming them, with the retryable `internal`. */
export function notReady(waiting: readonly string[]): MailstopError {
  return new StatusOverride(503, "internal", `Not ready: ${waiting.join(", ")}.`, { details: { not_ready: waiting } });
}

/**
 * The database could not be reached or dropped the connection: a 503 the client may retry
 * shortly (the retryable `internal`, as for a server not ready), not a 500.
 */
export function databaseUnavailable(cause: unknown): MailstopError {
  return new StatusOverride(503, "internal", "The database is unavailable; retry shortly.", { retryAfterSeconds: 1, cause });
}

/**
 * An unknown route or method: HTTP 404 with code `invalid_request` naming both; `why` tells
 * more when the path exists but is switched off.
 */
export function unknownRoute(method: string, path: string, why?: string): MailstopError {
  return new StatusOverride(404, "invalid_request", `No route ${method} ${path}${why === undefined ? "" : `: ${why}`}.`);
}

/**
 * A method a route outside the document does not serve, where its protocol requires 405 rather
 * than the unknown-route 404: MCP's streamable HTTP has a client probe `GET /mcp` for a stream
 * and treat only 405 as "none offered". `allow` goes into the reason; the caller sets `Allow`.
 */
export function methodNotAllowed(method: string, path: string, allow: string): MailstopError {
  return new StatusOverride(405, "invalid_request", `${method} ${path} is not served; use ${allow} ${path}.`, { details: { allow: [allow] } });
}

/**
 * An admin path naming a missing organisation or key. The code set has no code for these, so
 * they are `invalid_request` with HTTP 404, like an unknown route; `details` names the id
 * (`organisation_id`, `api_key_id`).
 */
export function adminNotFound(what: string, id: string): MailstopError {
  return new StatusOverride(404, "invalid_request", `No ${what} ${id}.`, { details: { [`${what.replace(/ /g, "_")}_id`]: id } });
}

/**
 * What a held wait gets when its waiter shuts down: `503`, retryable, retry after 1 s. The code
 * is `internal` (the closed set has no "unavailable" besides the object store's); a retried
 * wait with `match` returns a message stored meanwhile at once, so nothing is missed. A restart
 * is not a failure: it is logged at info, without a stack.
 */
export function restarting(): MailstopError {
  return new StatusOverride(503, "internal", "mailstop is restarting; retry the wait.", { retryAfterSeconds: 1, planned: true });
}
