/**
 * The closed set of error codes of SPEC.md, each with its HTTP status and whether a client
 * may retry it unchanged. This table is the only place a code meets a status.
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
   * Overrides the table's status. Used once: an unknown route is HTTP 404 with code
   * `invalid_request` (DECISIONS.md "Error envelope").
   */
  status?: number;
  /**
   * The server ends the request on purpose (a restart ending held waits): logged at info,
   * without a stack, instead of as a failure.
   */
  planned?: boolean;
}

/**
 * The one error type of mailstop. `reason` is public text; `cause` is internal.
 * Status and `retryable` come from {@link ERROR_TABLE}, never from the throw site.
 */
export class MailstopError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** See {@link ErrorOptions.planned}. */
  readonly planned: boolean;
  readonly #status: number | undefined;

  constructor(code: ErrorCode, reason: string, options: ErrorOptions = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MailstopError";
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.planned = options.planned ?? false;
    this.#status = options.status;
  }

  get reason(): string {
    return this.message;
  }

  get status(): number {
    return this.#status ?? ERROR_TABLE[this.code].status;
  }

  get retryable(): boolean {
    return ERROR_TABLE[this.code].retryable;
  }
}

/** The wire envelope of DECISIONS.md, shared by HTTP responses and stream `error` frames. */
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

/** Seconds a client should wait before retrying `domain_not_verified` (SPEC.md: about 60 s). */
export const DOMAIN_VERIFY_RETRY_SECONDS = 60;
