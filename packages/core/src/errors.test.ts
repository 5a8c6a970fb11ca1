import {
  ERROR_CODES,
  ERROR_TABLE,
  MailstopError,
  adminNotFound,
  asMailstopError,
  databaseUnavailable,
  notReady,
  restarting,
  toEnvelope,
  unknownRoute,
} from "./errors";

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

  it("takes no status from its caller: only the named constructors answer with another", () => {
    // @ts-expect-error `status` is not an option.
    expect(new MailstopError("invalid_request", "No route GET /x", { status: 404 }).status).toBe(400);
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

describe("the named constructors of statuses outside the table", () => {
  it.each([
    ["notReady", notReady(["database", "bus"]), 503, { code: "internal", reason: "Not ready: database, bus.", retryable: true, details: { not_ready: ["database", "bus"] } }],
    ["databaseUnavailable", databaseUnavailable(new Error("ECONNREFUSED")), 503, { code: "internal", reason: "The database is unavailable; retry shortly.", retryable: true, retry_after_seconds: 1 }],
    ["unknownRoute", unknownRoute("GET", "/x"), 404, { code: "invalid_request", reason: "No route GET /x.", retryable: false }],
    [
      "unknownRoute with a reason",
      unknownRoute("GET", "/admin/v1/x", "the admin API is disabled"),
      404,
      { code: "invalid_request", reason: "No route GET /admin/v1/x: the admin API is disabled.", retryable: false },
    ],
    ["adminNotFound", adminNotFound("api key", "key_1"), 404, { code: "invalid_request", reason: "No api key key_1.", retryable: false, details: { api_key_id: "key_1" } }],
    ["restarting", restarting(), 503, { code: "internal", reason: "mailstop is restarting; retry the wait.", retryable: true, retry_after_seconds: 1 }],
  ])("%s answers with its own status and the envelope of its code", (_name, error, status, envelope) => {
    expect(error).toBeInstanceOf(MailstopError);
    expect(error.status).toBe(status);
    expect(toEnvelope(error)).toEqual({ error: envelope });
  });

  it("keep the cause of an unreachable database for the logs, and mark a restart as planned", () => {
    const cause = new Error("ECONNREFUSED");
    expect(databaseUnavailable(cause).cause).toBe(cause);
    expect(restarting().planned).toBe(true);
    expect(unknownRoute("GET", "/x").planned).toBe(false);
  });
});
