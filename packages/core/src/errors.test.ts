import { ERROR_CODES, ERROR_TABLE, MailstopError, asMailstopError, toEnvelope } from "./errors";

describe("error table", () => {
  it("holds exactly the code set of SPEC.md with its statuses and retryability", () => {
    expect(ERROR_TABLE).toEqual({
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
    });
    expect(ERROR_CODES).toHaveLength(25);
  });
});

describe("MailstopError", () => {
  it("takes status and retryable from the table, never from the throw site", () => {
    const error = new MailstopError("domain_not_verified", "not yet", { retryAfterSeconds: 60, details: { domain: "a.b" } });
    expect(error.status).toBe(409);
    expect(error.retryable).toBe(true);
    expect(toEnvelope(error)).toEqual({
      error: { code: "domain_not_verified", reason: "not yet", retryable: true, details: { domain: "a.b" }, retry_after_seconds: 60 },
    });
  });

  it("omits details and retry_after_seconds when they do not apply", () => {
    expect(toEnvelope(new MailstopError("inbox_not_found", "none"))).toEqual({ error: { code: "inbox_not_found", reason: "none", retryable: false } });
  });

  it("allows the one status override of an unknown route", () => {
    expect(new MailstopError("invalid_request", "No route GET /x", { status: 404 }).status).toBe(404);
  });

  it("turns anything else into a retryable internal error that hides the cause", () => {
    const cause = new Error("connection refused to 10.0.0.1 with password hunter2");
    const error = asMailstopError(cause);
    expect(error.code).toBe("internal");
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(toEnvelope(error))).not.toContain("hunter2");
    const known = new MailstopError("conflict", "taken");
    expect(asMailstopError(known)).toBe(known);
  });
});
